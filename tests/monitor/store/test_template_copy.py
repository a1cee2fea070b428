"""The ``store`` fixture copies a database migrated once per session: the copy must be what migrating a fresh
database gives (every table's and view's DDL, the migration records), or tests would pass on a schema no user
has."""

import uuid

from sumwatch.monitor.settings import Settings
from sumwatch.monitor.store.connection import Store
from sumwatch.monitor.store.migrations import MIGRATIONS, migrate


def schema(st, database):
    rows = st.client.query("SELECT name, create_table_query FROM system.tables WHERE database = {db:String} "
                           "ORDER BY name", parameters={"db": database}).result_rows
    return {name: query.replace(f"{database}.", "DB.") for name, query in rows}


def records(st, database):
    return sorted(st.client.query(f"SELECT version, name, checksum FROM `{database}`.sumwatch_migrations "
                                  "FINAL").result_rows)


def test_the_copy_is_what_migrating_a_fresh_database_gives(store, sw_home):
    fresh = Settings.from_env(env={}, home=sw_home, database=f"t_{uuid.uuid4().hex[:10]}", port=0)
    with Store.open(fresh) as st:
        try:
            migrate(st)
            copied, migrated = store.settings.store.database, fresh.store.database
            assert schema(st, copied) == schema(st, migrated)
            assert len(schema(st, copied)) >= 20
            assert records(st, copied) == records(st, migrated)
            assert max(r[0] for r in records(st, copied)) == max(m.version for m in MIGRATIONS)
            assert migrate(store) == []  # nothing left to apply on the copy
        finally:
            st.command(f"DROP DATABASE IF EXISTS `{migrated}`")
