"""Many exercises at once: one row per exercise (``rows``), the portfolio as SQL over those rows
on DuckDB (``query``), and two exercises of one deployment side by side (``compare``)."""
