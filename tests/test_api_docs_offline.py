"""The OpenAPI page works without internet: Swagger UI is served from the package, not a CDN."""

from fastapi.testclient import TestClient

from mjlens.api.service.app import create_app


def test_docs_page_loads_only_local_assets():
    with TestClient(create_app()) as client:
        page = client.get("/docs")
        assert page.status_code == 200
        assert "cdn" not in page.text.lower()
        assert "/docs-assets/swagger-ui-bundle.js" in page.text
        assert client.get("/docs-assets/swagger-ui-bundle.js").status_code == 200
        assert client.get("/docs-assets/swagger-ui.css").status_code == 200
        assert client.get("/openapi.json").json()["info"]["title"] == "mjlens"
