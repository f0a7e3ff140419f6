// Validation sample for the dotnet profile: an EF Core model over SQLite,
// created with EnsureCreated and seeded, then a loop of LINQ queries whose
// results go to $DVAL_RESULTS_DIR/results.json. dotnet-dapper runs the
// same queries with Dapper and writes the same document.
using System.Text.Json;
using Microsoft.EntityFrameworkCore;

var dir = Environment.GetEnvironmentVariable("DVAL_RESULTS_DIR") ?? "results";
using var db = new ShopContext("Data Source=shop.db");
db.Database.EnsureDeleted();
db.Database.EnsureCreated();
db.Customers.AddRange(Seed.Customers());
db.SaveChanges();

var results = new Dictionary<string, object>
{
    ["customers_by_city"] = db.Customers.OrderBy(c => c.City).ThenBy(c => c.Name)
        .Select(c => new { c.Name, c.City }).ToList(),
    ["order_totals"] = db.Customers
        .Select(c => new { c.Name, Orders = c.Orders.Count, Total = c.Orders.Sum(o => o.Cents) })
        .OrderByDescending(x => x.Total).ThenBy(x => x.Name).ToList(),
    ["big_orders"] = db.Orders.Where(o => o.Cents >= 5000).OrderBy(o => o.Id)
        .Select(o => new { o.Id, Customer = o.Customer!.Name, o.Cents }).ToList(),
};
foreach (var (query, rows) in results)
    Console.WriteLine($"{query}: {JsonSerializer.Serialize(rows)}");
Directory.CreateDirectory(dir);
File.WriteAllText(Path.Combine(dir, "results.json"), JsonSerializer.Serialize(results));

class ShopContext(string connection) : DbContext
{
    public DbSet<Customer> Customers => Set<Customer>();
    public DbSet<Order> Orders => Set<Order>();
    protected override void OnConfiguring(DbContextOptionsBuilder o) => o.UseSqlite(connection);
}

class Customer
{
    public int Id { get; set; }
    public string Name { get; set; } = "";
    public string City { get; set; } = "";
    public List<Order> Orders { get; } = new();
}

class Order
{
    public int Id { get; set; }
    public long Cents { get; set; }
    public int CustomerId { get; set; }
    public Customer? Customer { get; set; }
}

static class Seed
{
    public static IEnumerable<Customer> Customers()
    {
        var ada = new Customer { Name = "Ada", City = "London" };
        ada.Orders.AddRange([new Order { Cents = 12050 }, new Order { Cents = 3000 }]);
        var linus = new Customer { Name = "Linus", City = "Helsinki" };
        linus.Orders.Add(new Order { Cents = 7500 });
        var grace = new Customer { Name = "Grace", City = "New York" };
        var alan = new Customer { Name = "Alan", City = "London" };
        alan.Orders.Add(new Order { Cents = 990 });
        return [ada, linus, grace, alan];
    }
}
