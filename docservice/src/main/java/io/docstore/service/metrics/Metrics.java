package io.docstore.service.metrics;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** Creates the service's Prometheus registry with the JVM and process meters bound. */
public final class Metrics {

  /** The GC binder of each open registry: it listens to the JVM's GC notifications until closed. */
  private static final Map<PrometheusMeterRegistry, JvmGcMetrics> GC_BINDERS =
      new ConcurrentHashMap<>();

  private Metrics() {}

  /**
   * A registry for one service instance; tests create their own so meters do not leak between them.
   * Close the returned registry with {@link #close}, which also unhooks the GC pause listener.
   */
  public static PrometheusMeterRegistry newRegistry() {
    PrometheusMeterRegistry r = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    // GC pauses set the read tail: export their p50/p99/p99.9 (over a sliding window), not just
    // max.
    r.config()
        .meterFilter(
            new MeterFilter() {
              @Override
              public DistributionStatisticConfig configure(
                  Meter.Id id, DistributionStatisticConfig config) {
                if (id.getName().equals("jvm.gc.pause")) {
                  return DistributionStatisticConfig.builder()
                      .percentiles(0.5, 0.99, 0.999)
                      .build()
                      .merge(config);
                }
                return config;
              }
            });
    JvmGcMetrics gc = new JvmGcMetrics();
    gc.bindTo(r);
    GC_BINDERS.put(r, gc);
    new JvmMemoryMetrics().bindTo(r);
    new JvmThreadMetrics().bindTo(r);
    new ClassLoaderMetrics().bindTo(r);
    new ProcessorMetrics().bindTo(r);
    new UptimeMetrics().bindTo(r);
    new FileDescriptorMetrics().bindTo(r);
    // Netty's pooled buffers (requests and responses) are direct memory the JVM's buffer pools do
    // not count: export it, so that the memory held for slow clients shows.
    if (io.netty.buffer.ByteBufAllocator.DEFAULT
        instanceof io.netty.buffer.ByteBufAllocatorMetricProvider p) {
      io.micrometer.core.instrument.Gauge.builder(
              "netty.direct.memory.used", p, a -> a.metric().usedDirectMemory())
          .baseUnit("bytes")
          .description("direct memory held by Netty's default (pooling) allocator")
          .register(r);
    }
    return r;
  }

  /** Unhooks the registry's GC listener and closes it. */
  public static void close(PrometheusMeterRegistry r) {
    JvmGcMetrics gc = GC_BINDERS.remove(r);
    if (gc != null) {
      gc.close();
    }
    r.close();
  }
}
