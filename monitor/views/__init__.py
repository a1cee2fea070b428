"""Views: the read API that `sumwatch up` serves, and the readers the CLI prints from."""
