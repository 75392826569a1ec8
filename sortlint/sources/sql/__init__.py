"""The SQL front end: plain `.sql` files cut into statements, and what every front end that
finds SQL shares - statement splitting of decoded text, placeholders for macros and
f-string fields, and the fix shapes of SQL text."""
