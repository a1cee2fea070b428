"""The web dashboard ``sumwatch up`` serves at ``/``: overview, issues, issue detail, cluster map, trace,
labelling queue and compare pages, rendered with Jinja2 from the store in the server's process, charts by
plotly.js served from the installed ``plotly`` package.

    routes = dashboard_routes(store, settings)          # views.app.create_app mounts them
"""

from .routes import dashboard_routes

__all__ = ["dashboard_routes"]
