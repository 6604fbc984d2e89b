{{/*
Chart name, truncated to 63 characters (the DNS-1123 label limit).
*/}}
{{- define "neardup.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Fully qualified app name: "<release>-<chart>", or the release name alone when it already
contains the chart name. Truncated to 63 characters.
*/}}
{{- define "neardup.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/*
Name of a component's resources: "<fullname>-<component>". The full name is cut first so the
component suffix always survives the 63-character limit.
*/}}
{{- define "neardup.componentName" -}}
{{- $component := .component }}
{{- $max := sub 62 (len $component) | int }}
{{- printf "%s-%s" (include "neardup.fullname" .root | trunc $max | trimSuffix "-") $component }}
{{- end }}

{{/*
Chart name and version, as used by the helm.sh/chart label.
*/}}
{{- define "neardup.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Common labels.
*/}}
{{- define "neardup.labels" -}}
helm.sh/chart: {{ include "neardup.chart" . }}
{{ include "neardup.selectorLabels" . }}
{{- if .Chart.AppVersion }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
{{- end }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: neardup
{{- end }}

{{/*
Selector labels (immutable on a Deployment: never add to these).
*/}}
{{- define "neardup.selectorLabels" -}}
app.kubernetes.io/name: {{ include "neardup.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/*
Labels and selector labels of one component: pass (dict "root" $ "component" "worker").
*/}}
{{- define "neardup.componentLabels" -}}
{{ include "neardup.labels" .root }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "neardup.componentSelectorLabels" -}}
{{ include "neardup.selectorLabels" .root }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{/*
ServiceAccount name.
*/}}
{{- define "neardup.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "neardup.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/*
The neardup image reference.
*/}}
{{- define "neardup.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}

{{/*
Whether a broker URL is available: from an existing Secret or the in-cluster Redis.
*/}}
{{- define "neardup.brokerConfigured" -}}
{{- if or .Values.broker.existingSecret .Values.redis.enabled }}true{{- end }}
{{- end }}

{{/*
The non-secret settings every neardup container gets (the ConfigMap's data). The templates
job renders them inline, because as a pre-install hook it runs before the ConfigMap exists.
*/}}
{{- define "neardup.configData" -}}
OPENSEARCH_URL: {{ .Values.opensearch.url | quote }}
OPENSEARCH_VERIFY_CERTS: {{ .Values.opensearch.verifyCerts | toString | quote }}
{{- if .Values.opensearch.tls.caSecretName }}
OPENSEARCH_CA_CERTS: "/etc/neardup/opensearch-ca/{{ .Values.opensearch.tls.caKey }}"
{{- end }}
NEARDUP_INDEX: {{ .Values.opensearch.index | quote }}
NEARDUP_PROFILE: {{ .Values.config.profile | quote }}
{{- if and .Values.redis.enabled (not .Values.broker.existingSecret) }}
CELERY_BROKER_URL: {{ printf "redis://%s:%d/0" (include "neardup.componentName" (dict "root" . "component" "redis")) (int .Values.redis.port) | quote }}
{{- end }}
{{- range $name, $value := .Values.config.extraEnv }}
{{ $name }}: {{ $value | toString | quote }}
{{- end }}
{{- end }}

{{/*
Environment read from Secrets (references only: the values never pass through the chart).
*/}}
{{- define "neardup.secretEnv" -}}
{{- with .Values.opensearch.auth.existingSecret }}
- name: OPENSEARCH_USER
  valueFrom:
    secretKeyRef:
      name: {{ . }}
      key: {{ $.Values.opensearch.auth.userKey }}
- name: OPENSEARCH_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ . }}
      key: {{ $.Values.opensearch.auth.passwordKey }}
{{- end }}
{{- with .Values.broker.existingSecret }}
- name: CELERY_BROKER_URL
  valueFrom:
    secretKeyRef:
      name: {{ . }}
      key: {{ $.Values.broker.urlKey }}
{{- end }}
{{- end }}

{{/*
Environment fixed by the chart: no bytecode writes on the read-only root filesystem, and a
writable HOME.
*/}}
{{- define "neardup.runtimeEnv" -}}
- name: PYTHONDONTWRITEBYTECODE
  value: "1"
- name: PYTHONUNBUFFERED
  value: "1"
- name: HOME
  value: /tmp
{{- end }}

{{/*
Volumes and mounts shared by the neardup containers: /tmp and the optional OpenSearch CA.
*/}}
{{- define "neardup.volumes" -}}
- name: tmp
  emptyDir:
    sizeLimit: {{ .Values.tmpSizeLimit }}
{{- with .Values.opensearch.tls.caSecretName }}
- name: opensearch-ca
  secret:
    secretName: {{ . }}
    items:
      - key: {{ $.Values.opensearch.tls.caKey }}
        path: {{ $.Values.opensearch.tls.caKey }}
{{- end }}
{{- end }}

{{- define "neardup.volumeMounts" -}}
- name: tmp
  mountPath: /tmp
{{- if .Values.opensearch.tls.caSecretName }}
- name: opensearch-ca
  mountPath: /etc/neardup/opensearch-ca
  readOnly: true
{{- end }}
{{- end }}
