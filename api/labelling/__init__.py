"""``mjlens label``: the photos found (``inputs``), each labelled the same way (``work``) by the local engine
(``engines``) or on a Ray cluster (``ray_engine``), the files written (``outputs``) as YOLO and COCO labels
(``labels``), and the review page (``review``, its script and style in ``review_page``, served by ``review_server``)
whose ``corrections`` flow back into the labels."""
