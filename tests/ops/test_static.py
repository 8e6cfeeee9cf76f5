"""Static files are served by the web process itself (WhiteNoise), with hashed names, compressed."""

from __future__ import annotations

import gzip
import os
import re
from pathlib import Path

from django.conf import settings
from django.templatetags.static import static
from django.test import Client

from memhq.ops.static import MANIFEST_NAME, newest_source_mtime, static_is_stale


def body(response: object) -> bytes:
    return b"".join(response.streaming_content)  # type: ignore[attr-defined]


def test_admin_css_is_served_with_a_hashed_name_and_cached_forever(db: None) -> None:
    url = static("admin/css/base.css")
    assert re.fullmatch(r"/static/admin/css/base\.[0-9a-f]{12}\.css", url), url
    response = Client().get(url)
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/css")
    assert "immutable" in response["Cache-Control"]
    assert b"--body-fg" in body(response)


def test_a_client_that_accepts_gzip_gets_the_compressed_copy(db: None) -> None:
    response = Client().get(static("admin/css/base.css"), headers={"accept-encoding": "gzip"})
    assert response.status_code == 200
    assert response["Content-Encoding"] == "gzip"
    assert b"--body-fg" in gzip.decompress(body(response))


def test_swagger_ui_page_links_assets_that_are_served(db: None) -> None:
    page = Client().get("/docs").content.decode()
    assets = re.findall(r'(?:src|href)="(/static/[^"]+)"', page)
    assert any("swagger-ui-bundle" in asset for asset in assets), assets
    for asset in assets:
        assert Client().get(asset).status_code == 200, asset


def test_collected_files_go_stale_when_a_source_file_changes(tmp_path: Path) -> None:
    assert not static_is_stale()  # the test session collected them
    manifest = Path(settings.STATIC_ROOT) / MANIFEST_NAME
    old = newest_source_mtime() - 1  # older than the newest source, however old the checkout is
    original = manifest.stat()
    os.utime(manifest, (old, old))
    try:
        assert static_is_stale()
    finally:
        os.utime(manifest, (original.st_atime, original.st_mtime))
