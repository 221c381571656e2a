package io.docstore.service.metrics;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.PropertyAccessor;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

/**
 * Serialises the stats objects of the queue, index and cache (records and plain classes with
 * private fields alike) by their fields, for {@code /stats} and {@code docstore stats}.
 * Thread-safe.
 */
public final class StatsJson {

  private static final ObjectMapper JSON =
      new ObjectMapper()
          .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
          .setVisibility(PropertyAccessor.ALL, JsonAutoDetect.Visibility.NONE)
          .setVisibility(PropertyAccessor.FIELD, JsonAutoDetect.Visibility.ANY);

  private StatsJson() {}

  public static byte[] bytes(Object stats) throws JsonProcessingException {
    return JSON.writeValueAsBytes(stats);
  }

  public static String pretty(Object stats) throws JsonProcessingException {
    return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(stats);
  }
}
