"""``neardup serve``: the HTTP ingest service, its ``_bulk`` endpoint and the inspector."""
