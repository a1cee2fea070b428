"""The web dashboard ``sumwatch up`` serves at ``/``: overview, issues, issue detail, cluster map, trace,
labelling queue and compare pages, rendered with Jinja2 from the store in the server's process, charts by
plotly.js served from the installed ``plotly`` package.

    include_dashboard(app)          # views.app.create_app: the pages' router, plotly.js and the static assets
"""

from .routes import include_dashboard, problem_page

__all__ = ["include_dashboard", "problem_page"]
