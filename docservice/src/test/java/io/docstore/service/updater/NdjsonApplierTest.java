package io.docstore.service.updater;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.service.DocumentSink;
import io.docstore.service.Update;
import io.docstore.service.Written;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class NdjsonApplierTest {

  /** Records batches; sequence = position. */
  static final class RecordingSink implements DocumentSink {
    final List<List<Update>> batches = new ArrayList<>();
    long seq;

    @Override
    public List<Written> apply(List<Update> updates) {
      batches.add(updates);
      List<Written> out = new ArrayList<>();
      for (Update u : updates) {
        out.add(new Written(u.id(), ++seq));
      }
      return out;
    }

    @Override
    public long lastSequence() {
      return seq;
    }

    @Override
    public Replay replay(long after) {
      throw new UnsupportedOperationException();
    }
  }

  @Test
  void appliesValidLinesInBatchesAndReportsTheRest() throws Exception {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < 25; i++) {
      b.append("{\"id\":").append(i).append(",\"doc\":{\"i\":").append(i).append("}}\r\n");
      if (i == 10) {
        b.append("oops\n\n   \n");
      }
    }
    b.append("{\"id\":99,\"op\":\"delete\"}"); // no final newline
    RecordingSink sink = new RecordingSink();
    List<Long> progress = new ArrayList<>();
    byte[] input = b.toString().getBytes(StandardCharsets.UTF_8);
    // A stream that returns tiny reads, so lines straddle read boundaries.
    InputStream in =
        new ByteArrayInputStream(input) {
          @Override
          public synchronized int read(byte[] buf, int off, int len) {
            return super.read(buf, off, Math.min(len, 7));
          }
        };
    NdjsonApplier.Result r =
        new NdjsonApplier(sink, new UpdateParser(1000), 10, 1000).apply(in, progress::add);
    assertThat(r.applied()).isEqualTo(26);
    assertThat(r.failed()).isEqualTo(1);
    assertThat(r.errors())
        .containsExactly(
            "line 12: invalid JSON: Unrecognized token 'oops': was expecting (JSON String, Number, Array, Object or token 'null', 'true' or 'false')");
    assertThat(r.lines()).isEqualTo(29);
    assertThat(r.lastSequence()).isEqualTo(26);
    assertThat(sink.batches).extracting(List::size).containsExactly(10, 10, 6);
    assertThat(new String(sink.batches.get(0).get(3).body(), StandardCharsets.UTF_8))
        .isEqualTo("{\"i\":3}");
    assertThat(sink.batches.get(2).get(5).isDelete()).isTrue();
    assertThat(progress.get(progress.size() - 1)).isEqualTo(input.length);
  }

  @Test
  void overlongLinesAreRejectedUnread() throws Exception {
    String big = "{\"id\":1,\"doc\":{\"a\":\"" + "x".repeat(5000) + "\"}}\n{\"id\":2,\"doc\":{}}\n";
    RecordingSink sink = new RecordingSink();
    NdjsonApplier.Result r =
        new NdjsonApplier(sink, new UpdateParser(1000), 10, 1000)
            .apply(new ByteArrayInputStream(big.getBytes(StandardCharsets.UTF_8)), x -> {});
    assertThat(r.applied()).isEqualTo(1);
    assertThat(r.failed()).isEqualTo(1);
    assertThat(r.errors().get(0)).startsWith("line 1: line longer than");
  }

  @Test
  void updatesReportedAsAppliedAreCountedButNotSent() throws Exception {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < 7; i++) {
      b.append("{\"id\":").append(i).append(",\"doc\":{}}\n");
    }
    byte[] input = b.toString().getBytes(StandardCharsets.UTF_8);
    int lineLength = input.length / 7;
    RecordingSink sink = new RecordingSink();
    List<Long> lineEnds = new ArrayList<>();
    List<String> batches = new ArrayList<>();
    NdjsonApplier.Result r =
        new NdjsonApplier(sink, new UpdateParser(1000), 2, 1000)
            .apply(
                new ByteArrayInputStream(input),
                new NdjsonApplier.Progress() {
                  @Override
                  public boolean alreadyApplied(Update update, long lineEnd) {
                    lineEnds.add(lineEnd);
                    return update.id() < 3;
                  }

                  @Override
                  public void batchDone(long consumed, long lastSequence) {
                    batches.add(consumed + "@" + lastSequence);
                  }
                });
    assertThat(r.applied()).isEqualTo(7);
    assertThat(lineEnds)
        .containsExactly(
            1L * lineLength,
            2L * lineLength,
            3L * lineLength,
            4L * lineLength,
            5L * lineLength,
            6L * lineLength,
            7L * lineLength);
    assertThat(sink.batches).extracting(u -> u.get(0).id()).containsExactly(3L, 5L);
    assertThat(batches)
        .containsExactly(5 * lineLength + "@2", 7 * lineLength + "@4", 7 * lineLength + "@0");
  }
}
