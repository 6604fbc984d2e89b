"""Refused credentials, a missing privilege and an untrusted certificate are
:class:`AccessDenied` (never retried, one line for the user), told apart from an outage and from
a cluster block; the clients' own error classes are raised here, no engine is needed (the real
nodes with security on: tests/integration/test_security.py)."""

from __future__ import annotations

import ssl

import opensearchpy
import pytest
import urllib3
from support.stub import stub_node

from neardup.ingest.settings import Settings
from neardup.ingest.store.detect import detect
from neardup.ingest.store.engine import translate_errors
from neardup.ingest.store.errors import (
    AccessDenied,
    AuthenticationFailed,
    CertificateNotTrusted,
    PermissionDenied,
    StoreUnavailable,
    certificate_problem,
    explain,
)
from neardup.ingest.store.opensearch import DIALECT

VERIFY = ssl.SSLCertVerificationError(
    1,
    "[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: self-signed certificate "
    "in certificate chain (_ssl.c:1000)",
)


def test_certificate_problems_are_found_in_every_client_s_error() -> None:
    want = "certificate verify failed: self-signed certificate in certificate chain"
    assert certificate_problem(urllib3.exceptions.SSLError(VERIFY)) == want
    wrapped = urllib3.exceptions.MaxRetryError(None, "/", urllib3.exceptions.SSLError(VERIFY))
    assert certificate_problem(wrapped) == want
    assert certificate_problem(opensearchpy.SSLError("N/A", str(VERIFY), VERIFY)) == want
    import elastic_transport

    tls = elastic_transport.TlsError(f"TLS error caused by: SSLError({VERIFY})", errors=(VERIFY,))
    assert certificate_problem(tls) == want
    missing = urllib3.exceptions.SSLError(FileNotFoundError(2, "No such file or directory"))
    assert certificate_problem(missing) == "the CA bundle cannot be read: No such file or directory"


def test_an_outage_is_no_certificate_problem() -> None:
    for exc in (
        ConnectionRefusedError(111, "Connection refused"),
        urllib3.exceptions.SSLError(ssl.SSLEOFError(8, "EOF occurred in violation")),
        opensearchpy.ConnectionError("N/A", "timed out", TimeoutError()),
    ):
        assert certificate_problem(exc) is None
        with pytest.raises(StoreUnavailable), translate_errors(DIALECT):
            raise opensearchpy.ConnectionError("N/A", str(exc), exc)


def test_the_store_tells_credentials_privileges_and_certificates_apart() -> None:
    with (
        pytest.raises(AuthenticationFailed, match=r"\(401: Unauthorized\)"),
        translate_errors(DIALECT),
    ):
        raise opensearchpy.AuthenticationException(401, "Unauthorized", "Unauthorized")
    denied = {
        "error": {
            "root_cause": [
                {"type": "security_exception", "reason": "no permissions for [indices:admin/get]"}
            ],
            "type": "security_exception",
            "reason": "no permissions for [indices:admin/get]",
        },
        "status": 403,
    }
    with (
        pytest.raises(PermissionDenied, match=r"no permissions for \[indices:admin/get\]"),
        translate_errors(DIALECT),
    ):
        raise opensearchpy.AuthorizationException(403, "security_exception", denied)
    with pytest.raises(PermissionDenied, match="no reason given"), translate_errors(DIALECT):
        raise opensearchpy.AuthorizationException(403, "", None)  # a HEAD request's answer
    with pytest.raises(CertificateNotTrusted), translate_errors(DIALECT):
        raise opensearchpy.SSLError("N/A", str(VERIFY), VERIFY)


def test_a_cluster_block_is_no_missing_privilege() -> None:
    block = {
        "error": {
            "type": "cluster_block_exception",
            "reason": "index [pages] blocked by: [FORBIDDEN/8/index write (api)];",
        },
        "status": 403,
    }
    with pytest.raises(opensearchpy.AuthorizationException) as caught, translate_errors(DIALECT):
        raise opensearchpy.AuthorizationException(403, "cluster_block_exception", block)
    assert not isinstance(caught.value, AccessDenied)


def test_explain_names_the_setting_to_fix_in_one_line() -> None:
    url = "https://neardup:s3cret@es.example:9200"
    user = Settings.from_env({"OPENSEARCH_URL": url, "OPENSEARCH_USER": "neardup"})
    line = explain(AuthenticationFailed("401: unable to\n authenticate"), user)
    assert line == (
        "the node at https://neardup:***@es.example:9200 refused the credentials "
        "(401: unable to authenticate); check OPENSEARCH_USER (neardup) and "
        "OPENSEARCH_PASSWORD"
    )
    keyed = Settings.from_env({"OPENSEARCH_API_KEY": "aWQ6a2V5"})
    assert explain(AuthenticationFailed("401: x"), keyed).endswith(
        "check OPENSEARCH_API_KEY (expired or invalidated?)"
    )
    nobody = Settings.from_env({})
    assert "set OPENSEARCH_USER and OPENSEARCH_PASSWORD, or OPENSEARCH_API_KEY" in explain(
        AuthenticationFailed("401: x"), nobody
    )
    assert explain(
        CertificateNotTrusted("certificate verify failed: x", "https://h:9200"), nobody
    ) == (
        "the TLS certificate of https://h:9200 is not trusted "
        "(certificate verify failed: x); set OPENSEARCH_CA_CERTS to the "
        "CA bundle that signed the node's certificate"
    )
    assert explain(PermissionDenied("403: no"), nobody).endswith(
        "denied a privilege (403: no); grant the role of docs/security.md"
    )
    assert "\n" not in explain(PermissionDenied("a\nb" * 300), nobody)


def test_detection_reports_refused_credentials() -> None:
    with stub_node(api_key="the-key") as node:
        settings = Settings.from_env(
            {
                "OPENSEARCH_URL": node.url,
                "OPENSEARCH_USER": "neardup",
                "OPENSEARCH_PASSWORD": "wrong",
            }
        )
        with pytest.raises(AuthenticationFailed) as caught:
            detect(node.url, settings)
        assert caught.value.url == node.url
        assert "unable to authenticate with provided credentials" in str(caught.value)
        assert node.seen()[0].headers["authorization"].startswith("Basic ")
