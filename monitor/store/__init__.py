"""ClickHouse storage: one connection for every mode (``chdb://`` embedded or a server), versioned
migrations, and one module per table holding its DDL, its column list and its row <-> record mapping."""
