"""The PySpark front end: DataFrame pipelines and the SQL of `spark.sql`.

`reader` evaluates a job's Python abstractly (libcst) into DataFrame operations (`values`);
`units` makes one unit per consumed DataFrame and per `spark.sql` statement; `build` turns a
pipeline into the IR, with `columns` printing DataFrame columns as SQL and as the names Spark
gives them; `fixes` writes the rules' fixes as DataFrame calls.
"""
