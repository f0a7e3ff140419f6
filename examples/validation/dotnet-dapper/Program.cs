// Validation sample for the dotnet profile: the queries of
// dotnet-efcore-sqlite written with Dapper over Microsoft.Data.Sqlite, with
// the same seed; it writes the same results document.
using System.Text.Json;
using Dapper;
using Microsoft.Data.Sqlite;

var dir = Environment.GetEnvironmentVariable("DVAL_RESULTS_DIR") ?? "results";
File.Delete("shop.db");
using var db = new SqliteConnection("Data Source=shop.db");
db.Open();
db.Execute("""
    CREATE TABLE Customers (Id INTEGER PRIMARY KEY, Name TEXT NOT NULL, City TEXT NOT NULL);
    CREATE TABLE Orders (Id INTEGER PRIMARY KEY, Cents INTEGER NOT NULL,
                         CustomerId INTEGER NOT NULL REFERENCES Customers(Id));
    INSERT INTO Customers (Id, Name, City) VALUES
        (1, 'Ada', 'London'), (2, 'Linus', 'Helsinki'), (3, 'Grace', 'New York'), (4, 'Alan', 'London');
    INSERT INTO Orders (Id, Cents, CustomerId) VALUES (1, 12050, 1), (2, 3000, 1), (3, 7500, 2), (4, 990, 4);
    """);

var results = new Dictionary<string, object>
{
    ["customers_by_city"] = db.Query<CityRow>(
        "SELECT Name, City FROM Customers ORDER BY City, Name").ToList(),
    ["order_totals"] = db.Query<TotalRow>("""
        SELECT c.Name, COUNT(o.Id) AS Orders, COALESCE(SUM(o.Cents), 0) AS Total
        FROM Customers c LEFT JOIN Orders o ON o.CustomerId = c.Id
        GROUP BY c.Id ORDER BY Total DESC, c.Name
        """).ToList(),
    ["big_orders"] = db.Query<BigRow>("""
        SELECT o.Id, c.Name AS Customer, o.Cents
        FROM Orders o JOIN Customers c ON c.Id = o.CustomerId
        WHERE o.Cents >= 5000 ORDER BY o.Id
        """).ToList(),
};
foreach (var (query, rows) in results)
    Console.WriteLine($"{query}: {JsonSerializer.Serialize(rows)}");
Directory.CreateDirectory(dir);
File.WriteAllText(Path.Combine(dir, "results.json"), JsonSerializer.Serialize(results));

record CityRow(string Name, string City);
record TotalRow(string Name, long Orders, long Total);
record BigRow(long Id, string Customer, long Cents);
