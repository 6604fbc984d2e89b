#!/usr/bin/env bash
# Make a private CA and a node certificate signed by it, for a node with security on
# (scripts/elasticsearch.sh and scripts/opensearch.sh with their SECURITY variable).
#
#   scripts/certs.sh DIR
#
# DIR/ca.crt and DIR/ca.key: the CA, made once and kept (clients verify the node with ca.crt:
# OPENSEARCH_CA_CERTS). DIR/node.crt and DIR/node.key (PKCS#8, as OpenSearch's security plugin
# requires): made anew each time, for 127.0.0.1 and localhost, subject CN=node,O=neardup, for
# both server and client use (nodes speak TLS to each other on the transport port too).
# Needs openssl (Debian's `openssl`, installed here when missing and run as root).
set -euo pipefail

DIR="${1:?usage: scripts/certs.sh DIR}"
if ! command -v openssl >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt-get install -y -q openssl >/dev/null 2>&1 || { apt-get update -q >/dev/null && apt-get install -y -q openssl >/dev/null; }
  else
    printf 'certs.sh: openssl is required (apt-get install openssl)\n' >&2; exit 1
  fi
fi
mkdir -p "$DIR"
if ! [ -s "$DIR/ca.crt" ] || ! [ -s "$DIR/ca.key" ]; then
  openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj "/O=neardup/CN=neardup test CA" \
    -keyout "$DIR/ca.key" -out "$DIR/ca.crt" 2>/dev/null
fi
openssl req -newkey rsa:2048 -nodes -subj "/O=neardup/CN=node" \
  -keyout "$DIR/node.key" -out "$DIR/node.csr" 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth,clientAuth\n' > "$DIR/node.ext"
openssl x509 -req -in "$DIR/node.csr" -CA "$DIR/ca.crt" -CAkey "$DIR/ca.key" -CAcreateserial \
  -days 825 -extfile "$DIR/node.ext" -out "$DIR/node.crt" 2>/dev/null
rm -f "$DIR/node.csr" "$DIR/node.ext"
chmod 600 "$DIR/ca.key" "$DIR/node.key"
