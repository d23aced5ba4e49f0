"""Interop in a second language: Python's authlib (Debian's python3-authlib) runs the
authorization code flow with PKCE against the service, verifies the ID token against the
published keys (iss, aud, nonce), and calls UserInfo. A person's sign-in is walked with
requests and a cookie jar. Prints one JSON object with what it found.

Usage: SVC_URL=http://127.0.0.1:5000 /usr/bin/python3 sign_in.py
"""
import json
import os
import re
import secrets
from html import unescape
from urllib.parse import urljoin

import requests
from authlib.common.security import generate_token
from authlib.integrations.requests_client import OAuth2Session
from authlib.jose import JsonWebKey, jwt

base = os.environ["SVC_URL"]
meta = requests.get(f"{base}/.well-known/openid-configuration", timeout=10).json()
redirect_uri = "https://web.example.com/callback"

client = OAuth2Session(
    client_id="web", client_secret="web-secret", scope="openid profile email",
    redirect_uri=redirect_uri, code_challenge_method="S256", token_endpoint_auth_method="client_secret_basic",
)
verifier = generate_token(48)
nonce = secrets.token_urlsafe(16)
uri, state = client.create_authorization_url(meta["authorization_endpoint"], code_verifier=verifier, nonce=nonce)

# The person: open the page, sign in, and stop at the redirect to the client.
browser = requests.Session()
page = browser.get(uri, allow_redirects=False, timeout=10)
form = re.search(r'<form method="post" action="([^"]*)">([\s\S]*?)</form>', page.text)
fields = {n: unescape(v) for n, v in re.findall(r'<input type="hidden" name="([^"]*)" value="([^"]*)">', form.group(2))}
fields.update(username="alice", password="alice-password-1")
signed_in = browser.post(urljoin(base, unescape(form.group(1))), data=fields, allow_redirects=False, timeout=10)
callback = signed_in.headers["Location"]

token = client.fetch_token(meta["token_endpoint"], authorization_response=callback, code_verifier=verifier, state=state)
keys = JsonWebKey.import_key_set(requests.get(meta["jwks_uri"], timeout=10).json())
claims = jwt.decode(token["id_token"], keys, claims_options={
    "iss": {"essential": True, "value": meta["issuer"]},
    "aud": {"essential": True, "value": "web"},
    "nonce": {"essential": True, "value": nonce},
})
claims.validate()
userinfo = client.get(meta["userinfo_endpoint"], timeout=10).json()
print(json.dumps({
    "iss_in_callback": "iss=" in callback,
    "sub": claims["sub"],
    "name": claims.get("name"),
    "userinfo": userinfo,
    "token_type": token["token_type"],
}))
