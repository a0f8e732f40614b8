"""The review page of ``mjlens label`` (api.labelling.labels.review_html): its script and style, inlined into each
page."""
