"""Python authlib as a real private_key_jwt client, driven by test/e2e/private-key-jwt-authlib.test.ts.

Reads one JSON object on stdin: token_url, client_id, private_key (PEM) and, optionally,
audience. Without audience, authlib signs the assertion as it ships: aud = the token endpoint
URL (RFC 7523). With it, PrivateKeyJWT's first argument (named token_endpoint, but it only sets
aud) is that value: the issuer identifier makes authlib RFC 10070 compatible.
Prints one JSON object: the token response, or {error, error_description}.
"""
import json
import sys

from authlib.integrations.base_client.errors import OAuthError
from authlib.integrations.requests_client import OAuth2Session
from authlib.oauth2.rfc7523 import PrivateKeyJWT

request = json.load(sys.stdin)
auth_method = PrivateKeyJWT(request["audience"]) if request.get("audience") else PrivateKeyJWT()
session = OAuth2Session(
    request["client_id"],
    request["private_key"],
    token_endpoint_auth_method=auth_method,
)
try:
    token = session.fetch_token(request["token_url"], grant_type="client_credentials")
    print(json.dumps(dict(token)))
except OAuthError as error:
    print(json.dumps({"error": error.error, "error_description": error.description}))
