package io.mongocdc.workflows.model;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * A mirror's typed columns: per collection, projections of its documents into real PostgreSQL
 * columns of its table, written in the same COPY as {@code doc}, and indexes on them (see {@code
 * docs/destination.md}).
 *
 * <p>Every component may be null in JSON (histories written before typed columns existed): null
 * means none.
 *
 * @param columns per collection (sorted), its columns in declared order
 * @param indexes per collection (sorted), the typed columns to index (created concurrently once the
 *     snapshot is done), sorted
 */
public record TypedColumnSettings(Map<String, List<TypedColumn>> columns, Map<String, List<String>> indexes) {

  /** Columns one collection may declare, at most. */
  public static final int MAX_COLUMNS_PER_COLLECTION = 100;

  public TypedColumnSettings {
    columns = columns == null ? Map.of() : DeterministicMaps.sorted(copies(columns, List::copyOf));
    indexes = indexes == null ? Map.of()
        : DeterministicMaps.sorted(copies(indexes, list -> List.copyOf(new TreeSet<>(list))));
  }

  public static TypedColumnSettings defaults() {
    return new TypedColumnSettings(null, null);
  }

  /** A collection's columns, in declared order; empty when it has none. */
  public List<TypedColumn> of(String collection) {
    return columns.getOrDefault(collection, List.of());
  }

  /** Every reason these settings cannot work; empty when they can. */
  public List<String> problems() {
    List<String> problems = new ArrayList<>();
    columns.forEach((collection, list) -> {
      if (collection.isBlank()) {
        problems.add("columns: a collection name cannot be blank");
      }
      if (list.size() > MAX_COLUMNS_PER_COLLECTION) {
        problems.add("columns." + collection + ": at most " + MAX_COLUMNS_PER_COLLECTION + " columns, got "
            + list.size());
      }
      Set<String> names = new HashSet<>();
      for (int i = 0; i < list.size(); i++) {
        TypedColumn column = list.get(i);
        String where = "columns." + collection + "[" + i + "]";
        if (column == null) {
          problems.add(where + ": a column cannot be null");
          continue;
        }
        problems.addAll(column.problems(where));
        if (column.name() != null && !names.add(column.name())) {
          problems.add(where + ": column '" + column.name() + "' is declared twice");
        }
      }
    });
    indexes.forEach((collection, names) -> {
      Set<String> declared = new HashSet<>();
      of(collection).forEach(c -> declared.add(c.name()));
      for (String name : names) {
        if (!declared.contains(name)) {
          problems.add("indexes." + collection + ": '" + name + "' is not a typed column of " + collection);
        }
      }
    });
    return problems;
  }

  /**
   * What an edit cannot do to these settings, whatever else it says: change the type of a column
   * the table already has (its values would not fit), remove a column that is not declared, or
   * drop data without naming the columns.
   */
  public List<String> editProblems(EditRequest edit) {
    List<String> problems = new ArrayList<>();
    if (edit.columns() != null) {
      edit.columns().forEach((collection, added) -> {
        Set<String> named = new HashSet<>();
        for (TypedColumn column : added) {
          if (column != null && column.name() != null && !named.add(column.name())) {
            // apply() merges by name, so the last would silently win; creating a mirror refuses it too.
            problems.add("columns." + collection + ": column '" + column.name() + "' is declared twice in this edit");
          }
        }
        for (TypedColumn column : added) {
          for (TypedColumn existing : of(collection)) {
            if (existing.name().equals(column.name()) && !existing.type().equals(column.type())) {
              problems.add("columns." + collection + ": '" + column.name() + "' is " + existing.type()
                  + " already; give the new column another name, or remove this one with removeColumns and"
                  + " dropColumnData first");
            }
          }
        }
      });
    }
    if (edit.removeColumns() != null) {
      edit.removeColumns().forEach((collection, removed) -> {
        for (String name : removed) {
          if (of(collection).stream().noneMatch(c -> c.name().equals(name))) {
            problems.add("removeColumns." + collection + ": '" + name + "' is not a typed column of " + collection);
          }
        }
      });
    }
    if (Boolean.TRUE.equals(edit.dropColumnData()) && edit.removeColumns() == null) {
      problems.add("dropColumnData: name the columns to drop with removeColumns");
    }
    return problems;
  }

  /**
   * These settings with the edit's columns applied: {@code columns} adds (or redefines, by name)
   * columns, {@code removeColumns} removes them (and their indexes), {@code indexes} adds indexes.
   */
  public TypedColumnSettings apply(EditRequest edit) {
    Map<String, List<TypedColumn>> merged = new TreeMap<>(columns);
    Map<String, List<String>> indexed = new TreeMap<>(indexes);
    if (edit.columns() != null) {
      edit.columns().forEach((collection, added) -> {
        Map<String, TypedColumn> byName = new LinkedHashMap<>();
        merged.getOrDefault(collection, List.of()).forEach(c -> byName.put(c.name(), c));
        added.forEach(c -> byName.put(c.name(), c));
        merged.put(collection, List.copyOf(byName.values()));
      });
    }
    if (edit.removeColumns() != null) {
      edit.removeColumns().forEach((collection, removed) -> {
        List<TypedColumn> kept = merged.getOrDefault(collection, List.of()).stream()
            .filter(c -> !removed.contains(c.name())).toList();
        if (kept.isEmpty()) {
          merged.remove(collection);
        } else {
          merged.put(collection, kept);
        }
        List<String> keptIndexes = indexed.getOrDefault(collection, List.of()).stream()
            .filter(name -> !removed.contains(name)).toList();
        if (keptIndexes.isEmpty()) {
          indexed.remove(collection);
        } else {
          indexed.put(collection, keptIndexes);
        }
      });
    }
    if (edit.indexes() != null) {
      edit.indexes().forEach((collection, added) -> {
        List<String> all = new ArrayList<>(indexed.getOrDefault(collection, List.of()));
        all.addAll(added);
        indexed.put(collection, all);
      });
    }
    return new TypedColumnSettings(merged, indexed);
  }

  /**
   * Per collection (sorted), the columns of these settings that {@code before} did not maintain as
   * they are defined now: added, redefined (another path or type under the same name), or added
   * again after a removal. Their cells hold nothing, or values of another definition, or values
   * the stream stopped updating; they must be emptied and filled again.
   */
  public Map<String, List<String>> changedSince(TypedColumnSettings before) {
    Map<String, List<String>> changed = new TreeMap<>();
    columns.forEach((collection, list) -> {
      List<TypedColumn> maintained = before.of(collection);
      List<String> names = list.stream().filter(column -> !maintained.contains(column)).map(TypedColumn::name).toList();
      if (!names.isEmpty()) {
        changed.put(collection, names);
      }
    });
    return changed;
  }

  /**
   * Per collection (sorted), the columns {@code before} had that these settings no longer have:
   * their entries leave the rows' {@code _drift}, which names only the columns the stream writes.
   */
  public Map<String, List<String>> removedSince(TypedColumnSettings before) {
    Map<String, List<String>> removed = new TreeMap<>();
    before.columns().forEach((collection, list) -> {
      List<String> kept = of(collection).stream().map(TypedColumn::name).toList();
      List<String> names = list.stream().map(TypedColumn::name).filter(name -> !kept.contains(name)).toList();
      if (!names.isEmpty()) {
        removed.put(collection, names);
      }
    });
    return removed;
  }

  private static <V> Map<String, V> copies(Map<String, V> map, Function<V, V> copy) {
    Map<String, V> copied = new TreeMap<>();
    map.forEach((k, v) -> copied.put(k, copy.apply(v)));
    return copied;
  }
}
