"""The HTTP service: the FastAPI ``app``, what guards it (``middleware``, ``uploads``, ``jsonlimits``, ``queue``,
``server``), its ``settings``, ``logs`` and one error shape (``errors``), the hand-in-progress endpoints
(``analysis``), photo to score (``pipeline``, which ``mjlens photo`` shares) and the phone page (``static/``)."""
