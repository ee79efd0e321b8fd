"""Running scorers over data: `benchmark()`, its records, the summary, the resume file, data files."""
