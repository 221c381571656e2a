package io.docstore.service.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.service.ServiceFixture;
import io.docstore.service.testing.RecordDamage;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A record damaged on disk (one flipped byte in its stored ID): its GET answers 500 without telling
 * the client where the server keeps its files (so does the admin page's lookup), a multi-get that
 * includes it answers the others and names it, and every detection is counted in {@code
 * docstore_corruption_total}.
 */
class DamagedRecordTest {

  /** An ID whose 8 big-endian bytes occur nowhere else in the segment. */
  private static final long VICTIM = 0x0123456789ABCDEFL;

  @TempDir Path dir;

  @Test
  void aDamagedRecordIsNamedAndCountedAndTheOthersAreServed() throws Exception {
    try (ServiceFixture s =
        ServiceFixture.start(
            dir, Map.of("docstore.cache.bytes", 0, "docstore.queue.block-cache", 0))) {
      assertThat(s.put(2, "{\"n\":2}").statusCode()).isEqualTo(200);
      assertThat(s.put(VICTIM, "{\"n\":\"victim\"}").statusCode()).isEqualTo(200);
      assertThat(s.put(3, "{\"n\":3}").statusCode()).isEqualTo(200);
      RecordDamage.flipInsideId(dir.resolve("queue"), VICTIM, "");

      HttpResponse<String> one = s.get("/docs/" + VICTIM);
      assertThat(one.statusCode()).isEqualTo(500);
      assertThat(one.body())
          .contains("damaged")
          .doesNotContain(dir.toString())
          .doesNotContain("seg-");

      HttpResponse<String> looked = s.adminGet("/lookup/" + VICTIM);
      assertThat(looked.statusCode()).as("the admin page's lookup").isEqualTo(500);
      assertThat(looked.body()).isEqualTo(one.body());

      HttpResponse<String> many = s.get("/docs?ids=2," + VICTIM + ",3,4");
      assertThat(many.statusCode()).isEqualTo(200);
      assertThat(many.body())
          .isEqualTo(
              "{\"found\":{\"2\":{\"n\":2},\"3\":{\"n\":3}},\"missing\":[4],\"damaged\":["
                  + VICTIM
                  + "]}");

      String metrics = s.adminGet("/metrics").body();
      Matcher m =
          Pattern.compile("(?m)^docstore_corruption_total(?:\\{[^}]*\\})? (\\S+)").matcher(metrics);
      assertThat(m.find()).as(metrics).isTrue();
      assertThat(Double.parseDouble(m.group(1)))
          .as("corruptions counted")
          .isGreaterThanOrEqualTo(2);
    }
  }
}
