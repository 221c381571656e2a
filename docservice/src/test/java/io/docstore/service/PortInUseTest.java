package io.docstore.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.docstore.service.config.ConfigError;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A port that is taken stops the service with a message naming the port, where it is, and the
 * configuration key that sets it (not the JDK's bare "Address already in use"), and leaves the data
 * directory free for the next start.
 */
class PortInUseTest {

  @TempDir Path dir;

  @Test
  void aTakenPortIsNamedWithItsConfigurationKey() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      int port = taken.getLocalPort();
      assertThatThrownBy(() -> ServiceFixture.start(dir, Map.of("docstore.http.admin.port", port)))
          .isInstanceOf(ConfigError.class)
          .hasMessageContaining("docstore.http.admin.port")
          .hasMessageContaining("admin port 127.0.0.1:" + port)
          .hasMessageContaining("choose another port");
      assertThatThrownBy(() -> ServiceFixture.start(dir, Map.of("docstore.http.read.port", port)))
          .isInstanceOf(ConfigError.class)
          .hasMessageContaining("docstore.http.read.port");
      assertThatThrownBy(
              () ->
                  ServiceFixture.start(
                      dir, Map.of("docstore.rpc.enabled", true, "docstore.rpc.port", port)))
          .isInstanceOf(ConfigError.class)
          .hasMessageContaining("docstore.rpc.port")
          .hasMessageContaining("RPC port");
    }
    // Nothing was left holding the data directory: the next start succeeds.
    try (ServiceFixture s = ServiceFixture.start(dir)) {
      assertThat(s.put(1, "{\"a\":1}").statusCode()).isEqualTo(200);
    }
  }
}
