package io.docstore.bench.workloads;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.bench.engines.Engine;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * The churn workload in process on a map, at 500 live documents and 2,500 updates in one second: a
 * right engine reads back clean, with expiries deleted by the workload or enforced by the engine;
 * an engine that forgets deletes or loses puts is caught by the reader's checks.
 */
class ChurnWorkloadTest {

  /** Committed at flush; optionally expiring by itself; optionally wrong in one way. */
  private static final class MapEngine implements Engine {
    final Map<Long, byte[]> values = new ConcurrentHashMap<>();
    final Map<Long, Long> expiries = new ConcurrentHashMap<>();
    final List<Runnable> batch = new ArrayList<>();
    final boolean expires;
    final boolean ignoresDeletes;
    final boolean losesPuts;
    long puts;

    MapEngine(boolean expires, boolean ignoresDeletes, boolean losesPuts) {
      this.expires = expires;
      this.ignoresDeletes = ignoresDeletes;
      this.losesPuts = losesPuts;
    }

    @Override
    public void put(byte[] key, byte[] value) {
      put(key, value, Long.MAX_VALUE);
    }

    @Override
    public void put(byte[] key, byte[] value, long expiresAtMillis) {
      long k = ByteBuffer.wrap(key).getLong();
      if (losesPuts && ++puts % 50 == 0) {
        return;
      }
      batch.add(
          () -> {
            values.put(k, value);
            expiries.put(k, expiresAtMillis);
          });
    }

    @Override
    public boolean expires() {
      return expires;
    }

    @Override
    public void delete(byte[] key) {
      long k = ByteBuffer.wrap(key).getLong();
      if (!ignoresDeletes) {
        batch.add(() -> values.remove(k));
      }
    }

    @Override
    public byte[] get(byte[] key) {
      long k = ByteBuffer.wrap(key).getLong();
      byte[] v = values.get(k);
      Long expiresAt = expiries.get(k);
      return v == null || (expiresAt != null && System.currentTimeMillis() >= expiresAt) ? null : v;
    }

    @Override
    public void flush() {
      batch.forEach(Runnable::run);
      batch.clear();
    }

    @Override
    public String settings() {
      return "map";
    }

    @Override
    public void close() {}
  }

  private static Map<String, Object> run(MapEngine engine, List<String> notes) throws Exception {
    WorkloadParams p = new WorkloadParams(500, 1, 50, 11, 1, 1, 1);
    ChurnWorkload w =
        new ChurnWorkload(
            2_500,
            2_500,
            () -> engine.values.values().stream().mapToLong(v -> v.length).sum(),
            notes::add);
    List<PhaseResult> phases = w.run(new WorkloadContext(() -> engine, p, () -> ""));
    assertThat(phases).extracting(PhaseResult::phase).containsExactly("churn", "churn-read");
    Map<String, Object> f = new java.util.LinkedHashMap<>(phases.get(0).fields());
    f.put("reads", phases.get(1).ops());
    f.put("read_misses", phases.get(1).misses());
    f.put("read_wrong", phases.get(1).wrong());
    return f;
  }

  @Test
  void aRightEngineReadsBackCleanWhetherItExpiresDocumentsOrTheWorkloadDeletesThem()
      throws Exception {
    for (boolean expires : new boolean[] {false, true}) {
      List<String> notes = new ArrayList<>();
      Map<String, Object> f = run(new MapEngine(expires, false, false), notes);
      assertThat((long) f.get("reads")).as("reads at about the update rate").isGreaterThan(1000);
      assertThat(f.get("read_misses")).isEqualTo(0L);
      assertThat(f.get("read_wrong")).isEqualTo(0L);
      assertThat((long) f.get("expiry_deletes") > 0).isEqualTo(!expires);
      assertThat((long) f.get("updates")).isBetween(2_300L, 2_700L);
      assertThat((long) f.get("live_docs")).isBetween(400L, 600L);
      if (!expires) {
        assertThat((double) f.get("space_amp"))
            .as("the map holds the live documents, and only them")
            .isBetween(0.8, 1.2);
      }
      String[] days = f.get("sample_day").toString().split(",");
      assertThat(days.length)
          .as("a sample a simulated day, fewer if the sampler was late when the writer ended")
          .isBetween(46, 91);
      assertThat(Double.parseDouble(days[days.length - 1])).isGreaterThan(89.0);
      assertThat(f.get("sample_disk_bytes").toString().split(",")).hasSameSizeAs(days);
      assertThat(notes).isEmpty();
    }
  }

  @Test
  void anEngineThatForgetsDeletesOrLosesPutsIsCaught() throws Exception {
    Map<String, Object> forgets = run(new MapEngine(false, true, false), new ArrayList<>());
    assertThat((long) forgets.get("read_wrong")).isPositive();
    Map<String, Object> loses = run(new MapEngine(false, false, true), new ArrayList<>());
    assertThat((long) loses.get("read_misses")).isPositive();
  }
}
