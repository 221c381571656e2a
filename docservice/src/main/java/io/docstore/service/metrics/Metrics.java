package io.docstore.service.metrics;

import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/** Creates the service's Prometheus registry with the JVM and process meters bound. */
public final class Metrics {

  private Metrics() {}

  /** A registry for one service instance; tests create their own so meters do not leak between them. */
  public static PrometheusMeterRegistry newRegistry() {
    PrometheusMeterRegistry r = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    new JvmMemoryMetrics().bindTo(r);
    new JvmThreadMetrics().bindTo(r);
    new ClassLoaderMetrics().bindTo(r);
    new ProcessorMetrics().bindTo(r);
    new UptimeMetrics().bindTo(r);
    new FileDescriptorMetrics().bindTo(r);
    return r;
  }
}
