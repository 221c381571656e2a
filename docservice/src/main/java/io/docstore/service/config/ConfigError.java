package io.docstore.service.config;

/**
 * A configuration value is missing, of the wrong type or out of range; names the key and the
 * reason.
 */
public class ConfigError extends IllegalArgumentException {

  private static final long serialVersionUID = 1L;

  private final String key;

  public ConfigError(String key, String reason) {
    super("invalid configuration: " + key + ": " + reason);
    this.key = key;
  }

  public String key() {
    return key;
  }
}
