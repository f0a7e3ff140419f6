-- The samples' shop data (see schema.sql).
INSERT INTO customers (id, name, city) VALUES
    (1, 'Ada', 'London'),
    (2, 'Grace', 'New York'),
    (3, 'Linus', 'Helsinki'),
    (4, 'Barbara', 'New York'),
    (5, 'Edsger', 'Amsterdam'),
    (6, 'Margaret', 'Boston');
INSERT INTO products (id, name, category, price_cents) VALUES
    (1, 'Keyboard', 'hardware', 4500),
    (2, 'Monitor', 'hardware', 18900),
    (3, 'Compiler', 'software', 9900),
    (4, 'Debugger', 'software', 4900),
    (5, 'Manual', 'books', 2500),
    (6, 'Mouse', 'hardware', 1900);
INSERT INTO orders (id, customer_id, ordered_on, status) VALUES
    (1, 1, '2026-01-05', 'shipped'),
    (2, 2, '2026-01-09', 'shipped'),
    (3, 3, '2026-02-11', 'open'),
    (4, 1, '2026-02-20', 'shipped'),
    (5, 4, '2026-03-02', 'cancelled'),
    (6, 2, '2026-03-15', 'open'),
    (7, 5, '2026-03-28', 'shipped');
INSERT INTO order_lines (order_id, product_id, quantity) VALUES
    (1, 1, 1), (1, 5, 2),
    (2, 2, 2), (2, 6, 1),
    (3, 3, 1),
    (4, 4, 3), (4, 6, 2),
    (5, 2, 1),
    (6, 1, 2), (6, 3, 1), (6, 5, 1),
    (7, 5, 4);
