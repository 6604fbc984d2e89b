"""neardup: near-duplicate web page detection (Huang, Wang & Li, 2007) for OpenSearch ingest."""
