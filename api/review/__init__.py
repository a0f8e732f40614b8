"""The review page of ``mjlens label`` (api.labeling.review_html): its script and style, inlined into each page."""
