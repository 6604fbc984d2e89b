# neardup's image: `neardup` and `celery` on PATH, the compiled verifier, no compiler.
#
#   scripts/image.sh build        (makes the Debian base with mmdebstrap, builds with podman)
#
# Stages: `build` compiles the package into a venv (Cython, gcc); `runtime` is the image the
# Helm chart runs — the venv on the bare base, uid 10001, nothing writable outside /tmp, so a
# read-only root filesystem costs nothing; `smoke` (the last stage, so a plain build runs it)
# checks the runtime image as the chart runs it: neardup, celery, the workers (their Celery app
# and Lua scripts, package data) and the compiled extensions load and work as uid 10001, there
# is no compiler, and that user can write nowhere but the
# temporary directories (/tmp is the chart's emptyDir; the root filesystem is read-only).
#
# BASE: a Debian bookworm root with python3 (scripts/image.sh makes it with
# `mmdebstrap --variant=minbase --include=python3,ca-certificates bookworm` and imports it as
# localhost/neardup-base); any image with Debian's python3 3.11 works the same.
ARG BASE=localhost/neardup-base:bookworm

FROM ${BASE} AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
      python3-venv python3-dev gcc libc6-dev \
 && rm -rf /var/lib/apt/lists/*
RUN python3 -m venv /opt/neardup
# pip trusts the system's CA bundle (scripts/image.sh mounts the build host's there, for a
# network whose TLS is inspected by a proxy), not only its own copy of certifi's.
ENV PIP_CERT=/etc/ssl/certs/ca-certificates.crt
COPY . /src
# A wheel build (not editable): the Cython extensions are compiled into the venv.
RUN /opt/neardup/bin/pip install --no-cache-dir --disable-pip-version-check /src \
 && /opt/neardup/bin/pip uninstall -y -q pip \
 && find /opt/neardup -name '__pycache__' -prune -o -name '*.py' -print0 \
      | xargs -0 /opt/neardup/bin/python -m py_compile

FROM ${BASE} AS runtime
COPY --from=build /opt/neardup /opt/neardup
RUN groupadd --gid 10001 neardup \
 && useradd --uid 10001 --gid 10001 --home-dir /tmp --no-create-home \
      --shell /usr/sbin/nologin neardup
ENV PATH=/opt/neardup/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    HOME=/tmp
USER 10001:10001
WORKDIR /tmp
ENTRYPOINT ["neardup"]
CMD ["--help"]

FROM runtime AS smoke
RUN neardup --version && celery --version \
 && python -c "import redis, neardup.ingest.workers.tasks; from neardup.ingest.workers.staging import BatchStaging; from neardup.ingest.workers.forest import RedisGroupForest; BatchStaging(redis.Redis(), 'smoke'); RedisGroupForest(redis.Redis(), 'smoke')" \
 && python -c "import neardup.verifier._lcs, neardup.verifier._words, neardup.ingest._fingerprint, neardup.ingest._records, neardup.ingest._chrome, neardup.ingest._sketch, neardup.ingest._candidates" \
 && NEARDUP_IMPL=cython python -c "import neardup.verifier.verdict, neardup.ingest.fingerprint, neardup.ingest.records, neardup.ingest.dedup; from neardup.verifier.lcs import lcs_length; assert lcs_length('abcabba', 'cbabac') == 4"
RUN test "$(id -u):$(id -g)" = "10001:10001" \
 && ! command -v gcc && ! command -v cc \
 && writable="$(find / -xdev \( -path /tmp -o -path /var/tmp -o -path /proc -o -path /sys -o -path /dev -o -path /run \) -prune -o ! -type l -writable -print 2>/dev/null || true)" \
 && { [ -z "$writable" ] || { echo "writable outside /tmp: $writable"; exit 1; }; } \
 && printf '%s\n' '{"a": {"text": "The harbour authority confirmed on Monday that the northern pier will close in March for repairs to the sea wall."}, "b": {"text": "Menu | Home\nThe harbour authority confirmed on Monday that the northern pier will close in March for repairs to the sea wall.\n(c) Coast Post"}}' > /tmp/pair.jsonl \
 && neardup compare /tmp/pair.jsonl | grep -q '"similar": true' \
 && rm /tmp/pair.jsonl
