package io.docstore.queue;

import static io.docstore.queue.V3Fixtures.*;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the format 3 damage tests share: a queue directory filled with JSON-like documents, the
 * model of what was appended, and the way to a sealed segment that starts with a dictionary.
 */
abstract class DamagedQueueTestBase {

  @TempDir Path dir;

  final List<Expected> model = new ArrayList<>();

  static QueueOptions opts(boolean mapped) {
    return small(mapped);
  }

  void fill(int records) throws IOException {
    model.addAll(fillJson(dir, records));
  }

  Expected expected(long sequence) {
    return model.get((int) sequence - 1);
  }

  Path sealedWithDictionary(int nth) throws IOException {
    return V3Fixtures.sealedWithDictionary(dir, nth);
  }
}
