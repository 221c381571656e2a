package io.docstore.service.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.service.ServiceFixture;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A shard map pushed to a node ({@code PUT /cluster} on its admin port) is checked, written over
 * the node's own map file and served at once; a map the node cannot take is refused with the reason
 * and changes nothing; the read port serves the map but takes none; the admin token guards the
 * push.
 */
class ClusterPushTest {

  @TempDir Path dir;

  private static final String MAP_V1 =
      "partitions 4\nshard a 0-1 127.0.0.1:9001\nshard b 2-3 127.0.0.1:9002\n";
  private static final String MAP_V2 =
      "partitions 4\nshard a 0 127.0.0.1:9001\nshard b 1-3 127.0.0.1:9002\n";

  private HttpResponse<String> push(ServiceFixture s, String map, String token) throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(s.admin("/cluster"))
            .PUT(HttpRequest.BodyPublishers.ofString(map, StandardCharsets.UTF_8));
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    return s.send(b.build());
  }

  @Test
  void aPushedMapIsServedAtOnceAndWrittenToTheNodesFile() throws Exception {
    Path file = dir.resolve("shards.map");
    Files.writeString(file, MAP_V1);
    try (ServiceFixture s =
        ServiceFixture.start(
            dir.resolve("data"), Map.of("docstore.cluster.shard-map", file.toString()))) {
      assertThat(s.get("/cluster").body()).contains("shard a 0,1 ");

      HttpResponse<String> r = push(s, MAP_V2, null);
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(r.body()).contains("shard a 0 ").contains("shard b 1,2,3 ");
      // In force at once (no reload interval), on both ports, and in the file for a restart.
      assertThat(s.get("/cluster").body()).contains("shard b 1,2,3 ");
      assertThat(s.adminGet("/cluster").body()).contains("shard b 1,2,3 ");
      assertThat(Files.readString(file)).contains("shard b 1,2,3 ");

      // Pushing the same map again changes nothing and answers it.
      assertThat(push(s, MAP_V2, null).statusCode()).isEqualTo(200);

      // Maps the node cannot take: refused with the reason; the map in force stays.
      HttpResponse<String> count = push(s, "partitions 6\nshard a 0-5 127.0.0.1:9001\n", null);
      assertThat(count.statusCode()).isEqualTo(400);
      assertThat(count.body()).contains("partition count changed from 4 to 6");
      HttpResponse<String> garbage = push(s, "this is no map", null);
      assertThat(garbage.statusCode()).isEqualTo(400);
      assertThat(garbage.body()).contains("shard map not taken");
      assertThat(s.get("/cluster").body()).contains("shard b 1,2,3 ");
      assertThat(Files.readString(file)).contains("shard b 1,2,3 ");

      // The read port serves the map but does not take one.
      HttpResponse<String> onRead =
          s.send(
              HttpRequest.newBuilder(s.read("/cluster"))
                  .PUT(HttpRequest.BodyPublishers.ofString(MAP_V1))
                  .build());
      assertThat(onRead.statusCode()).isEqualTo(405);
      assertThat(s.get("/cluster").body()).contains("shard b 1,2,3 ");
    }
    // A restart starts from the pushed map.
    try (ServiceFixture s =
        ServiceFixture.start(
            dir.resolve("data"), Map.of("docstore.cluster.shard-map", file.toString()))) {
      assertThat(s.get("/cluster").body()).contains("shard b 1,2,3 ");
    }
  }

  @Test
  void aPushNeedsTheAdminTokenAndANodeWithoutAMapSaysSo() throws Exception {
    Path file = dir.resolve("shards.map");
    Files.writeString(file, MAP_V1);
    try (ServiceFixture s =
        ServiceFixture.start(
            dir.resolve("data"),
            Map.of(
                "docstore.cluster.shard-map",
                file.toString(),
                "docstore.http.admin.token",
                "s3cret"))) {
      assertThat(push(s, MAP_V2, null).statusCode()).isEqualTo(401);
      assertThat(push(s, MAP_V2, "wrong").statusCode()).isEqualTo(401);
      assertThat(Files.readString(file)).isEqualTo(MAP_V1);
      assertThat(push(s, MAP_V2, "s3cret").statusCode()).isEqualTo(200);
    }
    try (ServiceFixture s = ServiceFixture.start(dir.resolve("plain"))) {
      HttpResponse<String> r = push(s, MAP_V2, null);
      assertThat(r.statusCode()).isEqualTo(404);
      assertThat(r.body()).contains("no shard map");
    }
  }
}
