{{/* Chart name, truncated to the 63 characters of a DNS label. */}}
{{- define "metric-reliability.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Fully qualified app name: the release name, plus the chart name unless it already contains it. */}}
{{- define "metric-reliability.fullname" -}}
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

{{- define "metric-reliability.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Labels shared by every object. */}}
{{- define "metric-reliability.labels" -}}
helm.sh/chart: {{ include "metric-reliability.chart" . }}
app.kubernetes.io/name: {{ include "metric-reliability.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Values.image.tag | default .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/* Selector labels of the server pods (the migration Job's pods carry component=migrate). */}}
{{- define "metric-reliability.selectorLabels" -}}
app.kubernetes.io/name: {{ include "metric-reliability.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: server
{{- end }}

{{- define "metric-reliability.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "metric-reliability.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* The Secret the pods read their credentials from. */}}
{{- define "metric-reliability.secretName" -}}
{{- default (include "metric-reliability.fullname" .) .Values.existingSecret }}
{{- end }}

{{- define "metric-reliability.image" -}}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion | toString) }}
{{- end }}

{{- define "metric-reliability.migrationImage" -}}
{{- $repository := .Values.migrations.image.repository | default .Values.image.repository }}
{{- $tag := .Values.migrations.image.tag | default (printf "%s-migrate" (.Values.image.tag | default .Chart.AppVersion | toString)) }}
{{- printf "%s:%s" $repository ($tag | toString) }}
{{- end }}

{{/* Name of the ConfigMap holding the catalogue, or "" for the image's bundled demo catalogue. */}}
{{- define "metric-reliability.catalogConfigMap" -}}
{{- if .Values.catalog.existingConfigMap }}
{{- .Values.catalog.existingConfigMap }}
{{- else if .Values.catalog.metrics }}
{{- printf "%s-catalog" (include "metric-reliability.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}

{{/*
Fails the render with a clear message when required values are missing or invalid.
Included once, from deployment.yaml.
*/}}
{{- define "metric-reliability.validate" -}}
{{- if not .Values.existingSecret }}
{{- if not .Values.database.url }}
{{- fail "database.url is required (postgresql://user:password@host:5432/db), or set existingSecret" }}
{{- end }}
{{- if not (regexMatch "^postgres(ql)?://" .Values.database.url) }}
{{- fail "database.url must start with postgresql://" }}
{{- end }}
{{- if not .Values.clickhouse.url }}
{{- fail "clickhouse.url is required: the image has no embedded ClickHouse (or put CLICKHOUSE_URL in existingSecret)" }}
{{- end }}
{{- if and (empty .Values.auth.apiKeys) (empty .Values.auth.readonlyKeys) }}
{{- fail "auth.apiKeys (or auth.readonlyKeys) needs at least one key, or set existingSecret" }}
{{- end }}
{{- range $key := concat .Values.auth.apiKeys .Values.auth.readonlyKeys }}
{{- if or (lt (len (toString $key)) 16) (contains "," (toString $key)) }}
{{- fail "every API key in auth.apiKeys / auth.readonlyKeys must be at least 16 characters, without commas" }}
{{- end }}
{{- end }}
{{- end }}
{{- if and .Values.clickhouse.url (not (regexMatch "^https?://" .Values.clickhouse.url)) }}
{{- fail "clickhouse.url must be an http(s) URL, e.g. http://clickhouse:8123" }}
{{- end }}
{{- range $name, $ds := .Values.clickhouse.datasources }}
{{- if not (regexMatch "^[a-z][a-z0-9_]*$" $name) }}
{{- fail (printf "clickhouse.datasources.%s: names must match ^[a-z][a-z0-9_]*$" $name) }}
{{- end }}
{{- if eq $name "default" }}
{{- fail "clickhouse.datasources.default: configure the default datasource with clickhouse.url" }}
{{- end }}
{{- if not (and $ds $ds.url) }}
{{- fail (printf "clickhouse.datasources.%s.url is required" $name) }}
{{- end }}
{{- end }}
{{- if and .Values.catalog.existingConfigMap .Values.catalog.metrics }}
{{- fail "set either catalog.existingConfigMap or catalog.metrics, not both" }}
{{- end }}
{{- if and .Values.metrics.serviceMonitor.enabled .Values.metrics.prometheusRule.enabled (not (contains "metric-reliability" (include "metric-reliability.name" .))) }}
{{- fail "metrics.prometheusRule: the scrape job is named after the chart name, and the rules select job=~\".*metric-reliability.*\"; keep \"metric-reliability\" in nameOverride" }}
{{- end }}
{{- end }}
