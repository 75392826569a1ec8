"""What spans files: which files a check reads (`discovery`), the tables created so far
(`tables`), the repository's starting state with its dbt models (`models`), the check loop
(`check`) and the workers that analyse files ahead (`workers`)."""
