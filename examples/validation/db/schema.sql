-- The samples' shop (examples/validation/*-db): portable SQL that both
-- PostgreSQL and SQLite take, so one seed serves both services. Dates are
-- ISO text and money is integer cents: the same values on both engines.
CREATE TABLE customers (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    city TEXT NOT NULL
);
CREATE TABLE products (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    category TEXT NOT NULL,
    price_cents INTEGER NOT NULL
);
CREATE TABLE orders (
    id INTEGER PRIMARY KEY,
    customer_id INTEGER NOT NULL REFERENCES customers (id),
    ordered_on TEXT NOT NULL,
    status TEXT NOT NULL
);
CREATE TABLE order_lines (
    order_id INTEGER NOT NULL REFERENCES orders (id),
    product_id INTEGER NOT NULL REFERENCES products (id),
    quantity INTEGER NOT NULL,
    PRIMARY KEY (order_id, product_id)
);
CREATE INDEX orders_customer ON orders (customer_id);
