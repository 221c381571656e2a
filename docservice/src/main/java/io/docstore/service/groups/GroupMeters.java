package io.docstore.service.groups;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Per-group figures of the group reads: {@code docstore_group_lookups_total} (projections asked
 * for), {@code docstore_group_found_total} (answered with a projection) and {@code
 * docstore_group_bytes_total} (projection bytes answered), each tagged {@code group}; the same in
 * {@code /stats} under {@code groups}. Thread-safe.
 */
public final class GroupMeters {

  private record Meters(Counter lookups, Counter found, Counter bytes) {}

  private final FieldGroups groups;
  private final Map<String, Meters> byGroup = new LinkedHashMap<>();

  public GroupMeters(FieldGroups groups, MeterRegistry registry) {
    this.groups = groups;
    for (String g : groups.names()) {
      byGroup.put(
          g,
          new Meters(
              Counter.builder("docstore.group.lookups")
                  .tag("group", g)
                  .description("Projections of field group asked for (one per ID)")
                  .register(registry),
              Counter.builder("docstore.group.found")
                  .tag("group", g)
                  .description("Projections of field group answered")
                  .register(registry),
              Counter.builder("docstore.group.bytes")
                  .tag("group", g)
                  .baseUnit("bytes")
                  .description("Bytes of projections of field group answered")
                  .register(registry)));
    }
  }

  /** Counts one group read of {@code lookups} IDs that found {@code found} projections. */
  void record(String group, int lookups, int found, long bytes) {
    Meters m = byGroup.get(group);
    if (m != null) {
      m.lookups.increment(lookups);
      m.found.increment(found);
      m.bytes.increment(bytes);
    }
  }

  /** For {@code /stats}: each group's fields and figures. */
  public Map<String, Object> stats() {
    Map<String, Object> out = new LinkedHashMap<>();
    byGroup.forEach(
        (g, m) -> {
          Map<String, Object> one = new LinkedHashMap<>();
          one.put("fields", groups.fields().get(g));
          one.put("lookups", (long) m.lookups.count());
          one.put("found", (long) m.found.count());
          one.put("bytes", (long) m.bytes.count());
          out.put(g, one);
        });
    return out;
  }
}
