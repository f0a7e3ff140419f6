// Validation sample for the java profile with a database service
// (--service postgres or --service sqlite, --seed ../db/schema.sql
// --seed ../db/data.sql): the query loop of dotnet-efcore-db and
// dotnet-dapper-db, translated to JDBC. DVAL_DB_JDBC is the URL of this
// validation's own database, whichever the service; its driver is on the
// class path (DVAL_CLASSPATH). It writes the same results document, byte
// for byte, as the two C# programs.
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

public class Main {
    static final String ORDER_TOTALS =
        "SELECT o.id AS order_id, c.name AS customer, "
        + "SUM(l.quantity * p.price_cents) AS total_cents "
        + "FROM orders o JOIN customers c ON c.id = o.customer_id "
        + "JOIN order_lines l ON l.order_id = o.id "
        + "JOIN products p ON p.id = l.product_id "
        + "WHERE o.status <> 'cancelled' "
        + "GROUP BY o.id, c.name ORDER BY total_cents DESC, o.id";
    static final String REVENUE_BY_CATEGORY =
        "SELECT p.category, SUM(l.quantity) AS units, "
        + "SUM(l.quantity * p.price_cents) AS revenue_cents "
        + "FROM order_lines l JOIN orders o ON o.id = l.order_id "
        + "JOIN products p ON p.id = l.product_id "
        + "WHERE o.status = 'shipped' GROUP BY p.category ORDER BY p.category";
    static final String WITHOUT_ORDERS =
        "SELECT name FROM customers c WHERE NOT EXISTS "
        + "(SELECT 1 FROM orders o WHERE o.customer_id = c.id) ORDER BY name";
    static final String TOP_CUSTOMER =
        "SELECT c.name, COUNT(DISTINCT o.id) AS orders, "
        + "COALESCE(SUM(l.quantity * p.price_cents), 0) AS total_cents "
        + "FROM customers c "
        + "LEFT JOIN orders o ON o.customer_id = c.id AND o.status <> 'cancelled' "
        + "LEFT JOIN order_lines l ON l.order_id = o.id "
        + "LEFT JOIN products p ON p.id = l.product_id "
        + "GROUP BY c.id, c.name ORDER BY total_cents DESC, c.name LIMIT 1";

    static String str(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char ch : s.toCharArray()) {
            if (ch == '"' || ch == '\\')
                b.append('\\').append(ch);
            else if (ch < 0x20 || ch > 0x7e)
                b.append(String.format("\\u%04X", (int) ch));
            else
                b.append(ch);
        }
        return b.append('"').toString();
    }

    /* Every row as {"label":value,...}: text columns quoted, the others
     * whole numbers (the queries return only these). */
    static String rows(ResultSet rs, String... labels) throws SQLException {
        StringBuilder b = new StringBuilder("[");
        for (int n = 0; rs.next(); n++) {
            b.append(n > 0 ? ",{" : "{");
            for (int i = 0; i < labels.length; i++) {
                b.append(i > 0 ? "," : "").append(str(labels[i])).append(':');
                Object v = rs.getObject(i + 1);
                b.append(v instanceof String ? str((String) v)
                         : Long.toString(rs.getLong(i + 1)));
            }
            b.append('}');
        }
        return b.append(']').toString();
    }

    static String names(Connection db) throws SQLException {
        StringBuilder b = new StringBuilder("[");
        try (Statement s = db.createStatement(); ResultSet rs = s.executeQuery(WITHOUT_ORDERS)) {
            for (int n = 0; rs.next(); n++)
                b.append(n > 0 ? "," : "").append(str(rs.getString(1)));
        }
        return b.append(']').toString();
    }

    static String query(Connection db, String sql, String... labels) throws SQLException {
        try (Statement s = db.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            return rows(rs, labels);
        }
    }

    static long count(Connection db) throws SQLException {
        try (Statement s = db.createStatement();
             ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM orders")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    public static void main(String[] args) throws Exception {
        String url = System.getenv("DVAL_DB_JDBC");
        if (url == null)
            throw new IllegalStateException("no DVAL_DB_JDBC: run with --service postgres or sqlite");
        StringBuilder out = new StringBuilder("{");
        String totals, topName;
        try (Connection db = DriverManager.getConnection(url)) {
            try (PreparedStatement ps = db.prepareStatement(
                     "SELECT id, name FROM customers WHERE city = ? ORDER BY name")) {
                ps.setString(1, "New York");
                try (ResultSet rs = ps.executeQuery()) {
                    out.append("\"customers_in_new_york\":").append(rows(rs, "id", "name"));
                }
            }
            totals = query(db, ORDER_TOTALS, "order_id", "customer", "total_cents");
            out.append(",\"order_totals\":").append(totals);
            out.append(",\"revenue_by_category\":")
               .append(query(db, REVENUE_BY_CATEGORY, "category", "units", "revenue_cents"));
            out.append(",\"customers_without_orders\":").append(names(db));
            String top = query(db, TOP_CUSTOMER, "name", "orders", "total_cents");
            out.append(",\"top_customer\":").append(top, 1, top.length() - 1);
            topName = top.split("\"")[3];
            out.append(",\"orders_before_insert\":").append(count(db));
            // A write: this validation's database is its own.
            try (Statement s = db.createStatement()) {
                s.executeUpdate("INSERT INTO orders (id, customer_id, ordered_on, status) "
                                + "VALUES (8, 6, '2026-04-01', 'open')");
                s.executeUpdate("INSERT INTO order_lines (order_id, product_id, quantity) "
                                + "VALUES (8, 1, 1)");
            }
            out.append(",\"orders_after_insert\":").append(count(db));
            out.append(",\"customers_without_orders_after_insert\":").append(names(db));
        }
        out.append('}');
        String dir = System.getenv("DVAL_RESULTS_DIR");
        Path results = Paths.get(dir == null || dir.isEmpty() ? "results" : dir);
        Files.createDirectories(results);
        Files.write(results.resolve("results.json"), out.toString().getBytes(StandardCharsets.UTF_8));
        System.out.println(totals.split("order_id").length - 1 + " orders, top customer " + topName);
    }
}
