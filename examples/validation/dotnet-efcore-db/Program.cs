// Validation sample for the dotnet profile with a database service
// (--service postgres or --service sqlite, --seed ../db/schema.sql
// --seed ../db/data.sql): an EF Core model of the seeded shop and a LINQ
// query loop, against whichever database the service gave this
// validation (DVAL_DB_URL says which: Npgsql or SQLite; DVAL_DB_ADO is its
// connection string). It writes the same results document as
// dotnet-dapper-db and java-jdbc-db.
using System.ComponentModel.DataAnnotations.Schema;
using System.Text.Json;
using Microsoft.EntityFrameworkCore;

var url = Environment.GetEnvironmentVariable("DVAL_DB_URL")
    ?? throw new InvalidOperationException("no DVAL_DB_URL: run with --service postgres or sqlite");
var ado = Environment.GetEnvironmentVariable("DVAL_DB_ADO")!;
var options = new DbContextOptionsBuilder<Shop>();
if (url.StartsWith("postgresql:"))
    options.UseNpgsql(ado);
else
    options.UseSqlite(ado);
using var db = new Shop(options.Options);

var results = new
{
    CustomersInNewYork = db.Customers.Where(c => c.City == "New York")
        .OrderBy(c => c.Name).Select(c => new { Id = (long)c.Id, c.Name }).ToList(),
    OrderTotals = db.Orders.Where(o => o.Status != "cancelled")
        .Select(o => new
        {
            OrderId = (long)o.Id,
            Customer = o.Customer.Name,
            TotalCents = o.Lines.Sum(l => (long)l.Quantity * l.Product.PriceCents),
        })
        .OrderByDescending(x => x.TotalCents).ThenBy(x => x.OrderId).ToList(),
    RevenueByCategory = db.OrderLines.Where(l => l.Order.Status == "shipped")
        .Select(l => new { l.Product.Category, Units = (long)l.Quantity,
                           Cents = (long)l.Quantity * l.Product.PriceCents })
        .GroupBy(x => x.Category)
        .Select(g => new { Category = g.Key, Units = g.Sum(x => x.Units),
                           RevenueCents = g.Sum(x => x.Cents) })
        .OrderBy(x => x.Category).ToList(),
    CustomersWithoutOrders = WithoutOrders(db),
    TopCustomer = db.Customers
        .Select(c => new
        {
            c.Name,
            Orders = (long)c.Orders.Count(o => o.Status != "cancelled"),
            TotalCents = c.Orders.Where(o => o.Status != "cancelled").SelectMany(o => o.Lines)
                .Sum(l => (long)l.Quantity * l.Product.PriceCents),
        })
        .OrderByDescending(x => x.TotalCents).ThenBy(x => x.Name).First(),
    OrdersBeforeInsert = db.Orders.LongCount(),
};
// A write: this validation's database is its own.
db.Orders.Add(new Order { Id = 8, CustomerId = 6, OrderedOn = "2026-04-01", Status = "open" });
db.OrderLines.Add(new OrderLine { OrderId = 8, ProductId = 1, Quantity = 1 });
db.SaveChanges();
var written = new
{
    results.CustomersInNewYork, results.OrderTotals, results.RevenueByCategory,
    results.CustomersWithoutOrders, results.TopCustomer, results.OrdersBeforeInsert,
    OrdersAfterInsert = db.Orders.LongCount(),
    CustomersWithoutOrdersAfterInsert = WithoutOrders(db),
};

var json = JsonSerializer.Serialize(written,
    new JsonSerializerOptions { PropertyNamingPolicy = JsonNamingPolicy.SnakeCaseLower });
var dir = Environment.GetEnvironmentVariable("DVAL_RESULTS_DIR") ?? "results";
Directory.CreateDirectory(dir);
File.WriteAllText(Path.Combine(dir, "results.json"), json);
Console.WriteLine($"{results.OrderTotals.Count} orders, top customer {results.TopCustomer.Name}");

static List<string> WithoutOrders(Shop db) =>
    db.Customers.Where(c => !c.Orders.Any()).OrderBy(c => c.Name).Select(c => c.Name).ToList();

class Shop(DbContextOptions<Shop> options) : DbContext(options)
{
    public DbSet<Customer> Customers => Set<Customer>();
    public DbSet<Product> Products => Set<Product>();
    public DbSet<Order> Orders => Set<Order>();
    public DbSet<OrderLine> OrderLines => Set<OrderLine>();

    protected override void OnModelCreating(ModelBuilder b)
    {
        b.Entity<OrderLine>().HasKey(l => new { l.OrderId, l.ProductId });
        b.Entity<Order>().HasMany(o => o.Lines).WithOne(l => l.Order).HasForeignKey(l => l.OrderId);
        b.Entity<Customer>().HasMany(c => c.Orders).WithOne(o => o.Customer).HasForeignKey(o => o.CustomerId);
        // The seed gives the keys: no database-generated ids.
        b.Entity<Order>().Property(o => o.Id).ValueGeneratedNever();
    }
}

[Table("customers")]
class Customer
{
    [Column("id")] public int Id { get; set; }
    [Column("name")] public string Name { get; set; } = "";
    [Column("city")] public string City { get; set; } = "";
    public List<Order> Orders { get; set; } = new();
}

[Table("products")]
class Product
{
    [Column("id")] public int Id { get; set; }
    [Column("name")] public string Name { get; set; } = "";
    [Column("category")] public string Category { get; set; } = "";
    [Column("price_cents")] public int PriceCents { get; set; }
}

[Table("orders")]
class Order
{
    [Column("id")] public int Id { get; set; }
    [Column("customer_id")] public int CustomerId { get; set; }
    [Column("ordered_on")] public string OrderedOn { get; set; } = "";
    [Column("status")] public string Status { get; set; } = "";
    public Customer Customer { get; set; } = null!;
    public List<OrderLine> Lines { get; set; } = new();
}

[Table("order_lines")]
class OrderLine
{
    [Column("order_id")] public int OrderId { get; set; }
    [Column("product_id")] public int ProductId { get; set; }
    [Column("quantity")] public int Quantity { get; set; }
    public Order Order { get; set; } = null!;
    public Product Product { get; set; } = null!;
}
