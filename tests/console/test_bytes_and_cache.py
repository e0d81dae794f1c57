"""Bytes on the wire: gzip when asked, versioned static files cached for a year, no Save
for viewers, and a refused definition path that does not show the machine's folders."""

from __future__ import annotations

import re
from pathlib import Path

from starlette.testclient import TestClient

from cfnops.config import Settings
from cfnops.console import Auth, create_app, read_token_file
from cfnops.console._static import LONG_CACHE


def test_pages_and_json_are_gzipped_when_asked(client: TestClient) -> None:
    page = client.get("/designer", headers={"Accept-Encoding": "gzip"})
    assert page.status_code == 200 and page.headers["content-encoding"] == "gzip"
    assert "vary" in page.headers and "accept-encoding" in page.headers["vary"].lower()
    data = client.get(
        "/designer/api/sdk", headers={"Accept": "application/json", "Accept-Encoding": "gzip"}
    )
    assert data.headers["content-encoding"] == "gzip" and "ec2" in data.json()["services"]
    plain = client.get("/designer", headers={"Accept-Encoding": "identity"})
    assert "content-encoding" not in plain.headers


def test_versioned_static_files_are_cached_for_a_year(client: TestClient) -> None:
    page = client.get("/runs").text
    found = re.search(r'src="(/static/console\.js\?v=([0-9a-f]{12}))"', page)
    assert found, page[:500]
    versioned = client.get(found.group(1))
    assert versioned.status_code == 200 and versioned.headers["cache-control"] == LONG_CACHE
    bare = client.get("/static/console.js")
    assert bare.headers["cache-control"] == "no-cache"
    stale = client.get("/static/console.js?v=000000000000")
    assert stale.headers["cache-control"] == "no-cache"
    assert client.get("/static/console.css?v=" + found.group(2)).headers["cache-control"] == (
        LONG_CACHE
    )


def test_a_viewer_has_no_save_button(settings: Settings, tmp_path: Path) -> None:
    tokens = tmp_path / "tokens"
    tokens.write_text(f"vera:viewer:{'v' * 20}\n")
    viewer = TestClient(create_app(settings, Auth(*read_token_file(tokens))))
    viewer.headers["Accept"] = "text/html"
    assert viewer.get(f"/login?token={'v' * 20}", follow_redirects=False).status_code == 303
    page = viewer.get("/designer").text
    assert 'id="d-save"' not in page and "Saving needs the operator role" in page
    assert 'title="running needs the operator role"' in page or "no sandbox endpoint" in page


def test_a_path_outside_the_roots_shows_no_absolute_folder(
    client: TestClient, settings: Settings, tmp_path: Path
) -> None:
    outside = tmp_path / "elsewhere" / "x.asl.json"
    for url in (f"/designer?path={outside}", f"/definitions?path={outside}"):
        answer = client.get(url)
        assert answer.status_code == 403, url
        assert "<h1>Cannot do that</h1>" in answer.text  # the error page, not raw JSON
        shown = answer.text.replace(str(outside), "")
        assert str(tmp_path) not in shown, url  # the roots are not shown by absolute path


def test_pages_json_and_static_files_are_brotli_when_offered(client: TestClient) -> None:
    for url, accept in (("/designer", "text/html"), ("/designer/api/sdk", "application/json")):
        plain = client.get(url, headers={"Accept": accept, "Accept-Encoding": "identity"})
        br = client.get(url, headers={"Accept": accept, "Accept-Encoding": "gzip, deflate, br"})
        assert br.headers["content-encoding"] == "br", url
        assert "accept-encoding" in br.headers["vary"].lower()
        assert int(br.headers["content-length"]) < len(plain.content) / 2, url
        assert br.content == plain.content  # decoded by httpx with the brotli package
    script = client.get("/static/vendor/cytoscape.min.js", headers={"Accept-Encoding": "br"})
    assert script.headers["content-encoding"] == "br" and b"cytoscape" in script.content[:2000]
    refused = client.get("/designer", headers={"Accept-Encoding": "br;q=0, gzip"})
    assert refused.headers["content-encoding"] == "gzip"


def test_brotli_streams_in_parts_and_leaves_event_streams_alone() -> None:
    from starlette.applications import Starlette
    from starlette.middleware import Middleware
    from starlette.responses import StreamingResponse
    from starlette.routing import Route

    from cfnops.console._compress import Compression, accepts_brotli

    parts = [b"event: update\ndata: %d\n\n" % i * 40 for i in range(5)]

    def answer(media: str) -> StreamingResponse:
        return StreamingResponse(iter(parts), media_type=media)

    app = Starlette(
        routes=[
            Route("/events", lambda r: answer("text/event-stream")),
            Route("/text", lambda r: answer("text/plain")),
        ],
        middleware=[Middleware(Compression, minimum_size=100)],
    )
    client = TestClient(app)
    events = client.get("/events", headers={"Accept-Encoding": "br"})
    assert "content-encoding" not in events.headers and events.content == b"".join(parts)
    text = client.get("/text", headers={"Accept-Encoding": "br"})
    assert text.headers["content-encoding"] == "br" and "content-length" not in text.headers
    assert text.content == b"".join(parts)
    assert [accepts_brotli(v) for v in ("br", "gzip, BR;q=0.5", "br;q=0", "gzip", "")] == [
        True, True, False, False, False
    ]  # fmt: skip
