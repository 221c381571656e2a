package io.docstore.service.torture;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.queue.DocQueue;
import io.docstore.queue.Op;
import io.docstore.queue.QueueOptions;
import io.docstore.queue.QueueRecord;
import io.docstore.queue.QueueTailer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scenario: the primary dies (a real process death at a kill point) halfway through an inbox file,
 * after a batch became durable and before the inbox could record it. The restarted service
 * acknowledges admin PUTs to two IDs the file already wrote (one in a batch the inbox had recorded,
 * one in the batch it had not) and is killed again; the next start finishes the file. The PUTs must
 * still be the newest versions, and the queue must hold every valid line of the file exactly once,
 * in file order (no line lost, none applied twice).
 */
class TortureInboxKillTest {

  @TempDir Path dir;

  @Test
  void aResumedInboxFileNeverOverwritesANewerAcknowledgedPut() throws Exception {
    Path data = dir.resolve("data");
    Path inbox = dir.resolve("inbox");
    Path log = dir.resolve("serve.log");
    Files.createDirectories(inbox);
    // 50 lines, 10 updates per batch; line 7 is invalid, line 12 writes ID 3 again.
    StringBuilder file = new StringBuilder();
    List<String> expected = new ArrayList<>();
    Map<Long, String> last = new LinkedHashMap<>();
    for (int line = 0; line < 50; line++) {
      if (line == 7) {
        file.append("broken\n");
        continue;
      }
      long id = line == 12 ? 3 : line;
      String doc = "{\"line\":" + line + "}";
      file.append("{\"id\":").append(id).append(",\"doc\":").append(doc).append("}\n");
      expected.add(id + "=" + doc);
      last.put(id, doc);
    }
    Files.writeString(dir.resolve("f.staging"), file);
    Files.move(dir.resolve("f.staging"), inbox.resolve("f.ndjson"));
    List<String> inboxArgs =
        List.of("-Ddocstore.inbox.dir=" + inbox, "-Ddocstore.bulk.max-lines=10");

    // 1. Dies right after the third batch is durable (lines 0..30 applied), before anything else.
    List<String> first = new ArrayList<>(inboxArgs);
    first.add("-Ddocstore.inbox.poll-interval=20ms");
    first.add("-Ddocstore.killpoint=docstore.durable-before-indexed@3");
    try (ServeJvm serve = ServeJvm.start(data, log, first)) {
      assertThat(serve.awaitExit(60)).as("kill point reached").isTrue();
      assertThat(serve.process.exitValue()).isEqualTo(137);
    }

    // 2. Restarted with the inbox idle: two acknowledged PUTs to IDs the file wrote, then kill -9.
    List<String> idle = new ArrayList<>(inboxArgs);
    idle.add("-Ddocstore.inbox.poll-interval=1h");
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    try (ServeJvm serve = ServeJvm.start(data, log, idle)) {
      for (long id : new long[] {5, 25}) {
        HttpResponse<String> r =
            http.send(
                HttpRequest.newBuilder(URI.create(serve.adminUrl + "/docs/" + id))
                    .PUT(HttpRequest.BodyPublishers.ofString(admin(id)))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as("PUT %d: %s", id, r.body()).isBetween(200, 299);
        last.put(id, admin(id));
      }
      serve.kill9();
    }

    // 3. Restarted with the inbox polling: it finishes the file.
    List<String> busy = new ArrayList<>(inboxArgs);
    busy.add("-Ddocstore.inbox.poll-interval=20ms");
    try (ServeJvm serve = ServeJvm.start(data, log, busy)) {
      Path failed = inbox.resolve("failed/f.ndjson");
      long deadline = System.nanoTime() + 60_000_000_000L;
      while (!Files.exists(failed) && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      assertThat(failed)
          .as("file finished (with its invalid line reported); log:\n%s", ServeJvm.tail(log))
          .exists();
      assertThat(Files.readString(inbox.resolve("failed/f.ndjson.errors")))
          .contains("49 updates applied, 1 lines invalid")
          .contains("line 8: invalid JSON");
      HttpReader reader = new HttpReader(serve.readUrl);
      for (Map.Entry<Long, String> e : last.entrySet()) {
        AckLedger.Read r = reader.read(e.getKey());
        assertThat(new String(r.body(), StandardCharsets.UTF_8))
            .as("document %d", e.getKey())
            .isEqualTo(e.getValue());
      }
      serve.kill9();
    }

    // Every valid line exactly once, in file order, around the two PUTs.
    List<String> fromInbox = new ArrayList<>();
    try (DocQueue q = DocQueue.open(data.resolve("queue"), QueueOptions.builder().build());
        QueueTailer t = q.tailer(1)) {
      QueueRecord r;
      while ((r = t.poll()) != null) {
        String body = r.op() == Op.DELETE ? "" : new String(r.body(), StandardCharsets.UTF_8);
        if (!body.startsWith("{\"admin\"")) {
          fromInbox.add(r.id() + "=" + body);
        }
      }
    }
    assertThat(fromInbox).containsExactlyElementsOf(expected);
  }

  private static String admin(long id) {
    return "{\"admin\":" + id + "}";
  }
}
