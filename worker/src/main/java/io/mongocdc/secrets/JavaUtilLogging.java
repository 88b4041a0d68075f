package io.mongocdc.secrets;

import org.slf4j.bridge.SLF4JBridgeHandler;

/**
 * Routes java.util.logging (pgjdbc, parts of the JDK) to SLF4J. Left alone, its console handler
 * writes to stderr directly, past the redacting log pattern: pgjdbc warns with the JDBC URL,
 * password included.
 */
public final class JavaUtilLogging {

  private JavaUtilLogging() {}

  /** Replaces the root logger's handlers with the bridge; calling it again changes nothing. */
  public static synchronized void routeToSlf4j() {
    if (!SLF4JBridgeHandler.isInstalled()) {
      SLF4JBridgeHandler.removeHandlersForRootLogger();
      SLF4JBridgeHandler.install();
    }
  }
}
