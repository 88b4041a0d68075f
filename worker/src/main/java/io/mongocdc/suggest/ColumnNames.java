package io.mongocdc.suggest;

import java.text.Normalizer;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;

/**
 * Column names derived from document paths: lower snake case ({@code customer.createdAt} is
 * {@code customer_created_at}), ASCII letters, digits and {@code _} only, so a name reads the
 * same quoted or not; accents dropped ({@code été} is {@code ete}), no leading {@code _} (the
 * destination's own columns start with one), never a leading digit, at most 63 bytes. Each
 * name is handed out once: a name taken already, by an earlier path or by the destination
 * table's own columns, gets {@code _2}, {@code _3}, ... appended.
 */
public final class ColumnNames {

  /** PostgreSQL's identifier limit (NAMEDATALEN - 1), in bytes; the names are ASCII. */
  static final int MAX_LENGTH = 63;

  private final Set<String> taken = new HashSet<>();

  /** @param reserved names no path may get (the table's own columns) */
  public ColumnNames(Set<String> reserved) {
    reserved.forEach(name -> taken.add(name.toLowerCase(Locale.ROOT)));
  }

  /** The next free name for {@code path}. */
  public String nameFor(String path) {
    String base = derive(path);
    String name = base;
    for (int n = 2; !taken.add(name); n++) {
      String suffix = "_" + n;
      name = base.substring(0, Math.min(base.length(), MAX_LENGTH - suffix.length())) + suffix;
    }
    return name;
  }

  /** The name {@code path} gets when it is free. */
  static String derive(String path) {
    String ascii = Normalizer.normalize(path, Normalizer.Form.NFD);
    StringBuilder name = new StringBuilder(ascii.length() + 8);
    for (int i = 0; i < ascii.length(); i++) {
      char c = ascii.charAt(i);
      if (Character.getType(c) == Character.NON_SPACING_MARK) {
        continue;
      }
      if (c >= 'A' && c <= 'Z') {
        char before = i > 0 ? ascii.charAt(i - 1) : '.';
        char after = i + 1 < ascii.length() ? ascii.charAt(i + 1) : '.';
        // orderNumber -> order_number; URLPath -> url_path
        if (isLowerOrDigit(before) || (before >= 'A' && before <= 'Z' && after >= 'a' && after <= 'z')) {
          name.append('_');
        }
        name.append((char) (c - 'A' + 'a'));
      } else if (isLowerOrDigit(c)) {
        name.append(c);
      } else {
        name.append('_');
      }
    }
    String snake = name.toString().replaceAll("_+", "_").replaceAll("^_|_$", "");
    if (snake.isEmpty()) {
      snake = "column";
    } else if (Character.isDigit(snake.charAt(0))) {
      snake = "c_" + snake;
    }
    return snake.length() > MAX_LENGTH ? snake.substring(0, MAX_LENGTH).replaceAll("_$", "") : snake;
  }

  private static boolean isLowerOrDigit(char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
  }
}
