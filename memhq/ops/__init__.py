"""The operator's side: static files, the graph page, metrics and logs."""
