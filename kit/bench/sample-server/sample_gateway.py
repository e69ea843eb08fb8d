"""A stand-in for the platform's own sample gateway (its starter kit's Flask server), written here.

It does what that sample does, so `npm run bench` can compare against it on the same data: every
item held in process memory (the sample serves hard-coded demo items; this one loads the bench's
staged files from the SQLite file named by SAMPLE_SQLITE_PATH once, at import), offset paging with
$top/$skip and a nextLink built from them, the API key compared as a plain string after removing a
"Bearer " prefix, static X-RateLimit-* headers on every answer, errors as {"error": {code, message}},
a placeholder body for downloads, and every file public. Run it under gunicorn:

    SAMPLE_SQLITE_PATH=staging.sqlite GATEWAY_API_KEY=... gunicorn -w 2 -b 127.0.0.1:8000 sample_gateway:app
"""

import json
import os
import sqlite3

from flask import Flask, jsonify, make_response, request

API_KEY = os.environ.get("GATEWAY_API_KEY", "")
DEFAULT_TOP = 50


def load_files(path):
    """The staged files as the sample's in-memory items: a list in id order and a dict by id."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    conn.row_factory = sqlite3.Row
    rows = conn.execute(
        "select id, name, external_url, mime_type, status, size, sha1, body_html, created_at, created_by,"
        " modified_at, modified_by, custom_attributes from files order by id"
    ).fetchall()
    conn.close()
    items = [dict(r) for r in rows]
    return items, {item["id"]: item for item in items}


FILES, FILES_BY_ID = load_files(os.environ["SAMPLE_SQLITE_PATH"]) if os.environ.get("SAMPLE_SQLITE_PATH") else ([], {})

app = Flask(__name__)


def node(item):
    """An item in the wire shape of a file."""
    content = {"mime_type": item["mime_type"], "size": item["size"]}
    if item["mime_type"] == "text/html":
        content["body"] = item["body_html"] or ""
    else:
        content["download_path"] = f"/{item['id']}/download"
        content["sha1_hash"] = item["sha1"]
    return {
        "id": item["id"],
        "name": item["name"],
        "external_url": item["external_url"],
        "last_modified_datetime": item["modified_at"],
        "status": item["status"],
        "created_datetime": item["created_at"],
        "created_by": item["created_by"],
        "last_modified_by": item["modified_by"],
        "content": content,
        "custom_attributes": json.loads(item["custom_attributes"]) if item["custom_attributes"] else {},
    }


def error(status, code, message):
    return make_response(jsonify({"error": {"code": code, "message": message}}), status)


def context(entity):
    return f"{request.url_root.rstrip('/')}/v1/$metadata#{entity}"


def paged(items, path, entity, to_wire):
    top = request.args.get("$top", DEFAULT_TOP, type=int)
    skip = request.args.get("$skip", 0, type=int)
    page = items[skip : skip + top]
    body = {"@odata.context": context(entity), "value": [to_wire(i) for i in page]}
    if skip + len(page) < len(items):
        body["@odata.nextLink"] = f"{request.url_root.rstrip('/')}{path}?$top={top}&$skip={skip + top}"
    return make_response(jsonify(body), 200)


@app.before_request
def check_key():
    if not API_KEY:
        return None
    token = request.headers.get("Authorization", "").removeprefix("Bearer ").strip()
    if not token or token != API_KEY:
        return error(401, "AUTHENTICATION_FAILED", "Bearer token missing or invalid.")
    return None


@app.after_request
def rate_limit_headers(response):
    response.headers["X-RateLimit-Limit"] = "600"
    response.headers["X-RateLimit-Remaining"] = "599"
    response.headers["X-RateLimit-Reset"] = "60"
    return response


@app.get("/v1/files")
def list_files():
    return paged(FILES, "/v1/files", "Content", node)


@app.get("/v1/files/permissions/metadata")
def permissions_metadata():
    return make_response(jsonify({"@odata.context": context("PermissionsMetadata"), "model": "resource_permission"}), 200)


@app.get("/v1/files/<file_id>")
def get_file(file_id):
    item = FILES_BY_ID.get(file_id)
    if item is None:
        return error(404, "NOT_FOUND", f"File {file_id} not found.")
    return make_response(jsonify({"@odata.context": context("Content"), "value": node(item)}), 200)


@app.get("/v1/files/<file_id>/download")
def download_file(file_id):
    item = FILES_BY_ID.get(file_id)
    if item is None:
        return error(404, "NOT_FOUND", f"File {file_id} not found.")
    return make_response(f"[Demo] Binary content for: {item['name']}".encode(), 200, {"Content-Type": item["mime_type"]})


@app.get("/v1/files/<file_id>/permissions")
def file_permissions(file_id):
    if file_id not in FILES_BY_ID:
        return error(404, "NOT_FOUND", f"File {file_id} not found.")
    body = {"@odata.context": context("Permissions"), "value": {"permissions": [{"type": "GROUP", "id": "*", "action": "VIEW"}]}}
    return make_response(jsonify(body), 200)


@app.get("/v1/users")
def list_users():
    return paged([], "/v1/users", "Users", lambda u: u)


@app.get("/v1/groups")
def list_groups():
    return paged([], "/v1/groups", "Groups", lambda g: g)
