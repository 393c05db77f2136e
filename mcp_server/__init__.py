"""MCP server for AI assistants: incident tools, resources and a triage prompt.

Served over Streamable HTTP at `/mcp` by the site's ASGI app (`incidentlib/asgi.py`) and
over stdio by `python manage.py mcp_stdio`. Tools call `incidents.selectors`,
`incidents.documents` and `incidents.search`; nothing here queries on its own.
"""
