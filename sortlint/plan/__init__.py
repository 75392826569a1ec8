"""The relational IR every front end builds (`nodes`), the SQL builder (`statement` and the
modules it uses), the names Spark gives output columns (`names`), and what a query may know
of the tables it reads (`tables`)."""
