package io.docstore.service.config;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;

/** What this JVM allows for memory outside the heap. */
public final class JvmMemory {

  private JvmMemory() {}

  /**
   * The direct memory limit: {@code -XX:MaxDirectMemorySize} when set, else the JVM's default,
   * the maximum heap size.
   */
  public static long directLimit() {
    try {
      HotSpotDiagnosticMXBean hs = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
      long set = hs == null ? 0 : Long.parseLong(hs.getVMOption("MaxDirectMemorySize").getValue());
      if (set > 0) {
        return set;
      }
    } catch (IllegalArgumentException e) {
      // not a HotSpot VM: fall back to the default rule
    }
    return Runtime.getRuntime().maxMemory();
  }
}
