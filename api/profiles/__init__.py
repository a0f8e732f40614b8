"""Profiles of a client's own tile set, made through the service: the ``/v1/profiles`` endpoints (``routes``), their
``tiles`` field and ``answer_warnings``, and the database that keeps them (``store``, its schema brought to the
newest revision by ``migrate`` from the Alembic scripts in ``migrations``)."""
