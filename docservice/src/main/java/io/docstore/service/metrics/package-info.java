/**
 * The metrics registry (Micrometer, exported as Prometheus text on the admin port's {@code
 * /metrics}). Meters themselves live with the code they measure; this package only builds the
 * registry. The list of meters is in {@code docs/metrics.md}.
 */
package io.docstore.service.metrics;
