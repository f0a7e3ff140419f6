// Validation sample for the dotnet profile with a database service
// (--service postgres or --service sqlite, --seed ../db/schema.sql
// --seed ../db/data.sql): the query loop of dotnet-efcore-db written with
// Dapper, against whichever database the service gave this validation
// (DVAL_DB_URL says which; DVAL_DB_ADO is its connection string). It
// writes the same results document as dotnet-efcore-db and java-jdbc-db.
using System.Data.Common;
using System.Text.Json;
using Dapper;
using Microsoft.Data.Sqlite;
using Npgsql;

var url = Environment.GetEnvironmentVariable("DVAL_DB_URL")
    ?? throw new InvalidOperationException("no DVAL_DB_URL: run with --service postgres or sqlite");
var ado = Environment.GetEnvironmentVariable("DVAL_DB_ADO")!;
using DbConnection db = url.StartsWith("postgresql:") ? new NpgsqlConnection(ado)
                                                      : new SqliteConnection(ado);
db.Open();
DefaultTypeMap.MatchNamesWithUnderscores = true;

var results = new Results
{
    CustomersInNewYork = db.Query<CityCustomer>(
        "SELECT id, name FROM customers WHERE city = @City ORDER BY name",
        new { City = "New York" }).ToList(),
    OrderTotals = db.Query<OrderTotal>("""
        SELECT o.id AS order_id, c.name AS customer,
               SUM(l.quantity * p.price_cents) AS total_cents
        FROM orders o JOIN customers c ON c.id = o.customer_id
             JOIN order_lines l ON l.order_id = o.id
             JOIN products p ON p.id = l.product_id
        WHERE o.status <> 'cancelled'
        GROUP BY o.id, c.name ORDER BY total_cents DESC, o.id
        """).ToList(),
    RevenueByCategory = db.Query<CategoryRevenue>("""
        SELECT p.category, SUM(l.quantity) AS units,
               SUM(l.quantity * p.price_cents) AS revenue_cents
        FROM order_lines l JOIN orders o ON o.id = l.order_id
             JOIN products p ON p.id = l.product_id
        WHERE o.status = 'shipped'
        GROUP BY p.category ORDER BY p.category
        """).ToList(),
    CustomersWithoutOrders = WithoutOrders(db),
    TopCustomer = db.QuerySingle<TopCustomer>("""
        SELECT c.name, COUNT(DISTINCT o.id) AS orders,
               COALESCE(SUM(l.quantity * p.price_cents), 0) AS total_cents
        FROM customers c
             LEFT JOIN orders o ON o.customer_id = c.id AND o.status <> 'cancelled'
             LEFT JOIN order_lines l ON l.order_id = o.id
             LEFT JOIN products p ON p.id = l.product_id
        GROUP BY c.id, c.name ORDER BY total_cents DESC, c.name LIMIT 1
        """),
    OrdersBeforeInsert = db.ExecuteScalar<long>("SELECT COUNT(*) FROM orders"),
};
// A write: this validation's database is its own.
db.Execute("INSERT INTO orders (id, customer_id, ordered_on, status) VALUES (8, 6, '2026-04-01', 'open')");
db.Execute("INSERT INTO order_lines (order_id, product_id, quantity) VALUES (8, 1, 1)");
results.OrdersAfterInsert = db.ExecuteScalar<long>("SELECT COUNT(*) FROM orders");
results.CustomersWithoutOrdersAfterInsert = WithoutOrders(db);

var json = JsonSerializer.Serialize(results,
    new JsonSerializerOptions { PropertyNamingPolicy = JsonNamingPolicy.SnakeCaseLower });
var dir = Environment.GetEnvironmentVariable("DVAL_RESULTS_DIR") ?? "results";
Directory.CreateDirectory(dir);
File.WriteAllText(Path.Combine(dir, "results.json"), json);
Console.WriteLine($"{results.OrderTotals.Count} orders, top customer {results.TopCustomer.Name}");

static List<string> WithoutOrders(DbConnection db) => db.Query<string>("""
    SELECT name FROM customers c
    WHERE NOT EXISTS (SELECT 1 FROM orders o WHERE o.customer_id = c.id)
    ORDER BY name
    """).ToList();

class CityCustomer { public long Id { get; set; } public string Name { get; set; } = ""; }
class OrderTotal { public long OrderId { get; set; } public string Customer { get; set; } = ""; public long TotalCents { get; set; } }
class CategoryRevenue { public string Category { get; set; } = ""; public long Units { get; set; } public long RevenueCents { get; set; } }
class TopCustomer { public string Name { get; set; } = ""; public long Orders { get; set; } public long TotalCents { get; set; } }

class Results
{
    public List<CityCustomer> CustomersInNewYork { get; set; } = new();
    public List<OrderTotal> OrderTotals { get; set; } = new();
    public List<CategoryRevenue> RevenueByCategory { get; set; } = new();
    public List<string> CustomersWithoutOrders { get; set; } = new();
    public TopCustomer TopCustomer { get; set; } = new();
    public long OrdersBeforeInsert { get; set; }
    public long OrdersAfterInsert { get; set; }
    public List<string> CustomersWithoutOrdersAfterInsert { get; set; } = new();
}
