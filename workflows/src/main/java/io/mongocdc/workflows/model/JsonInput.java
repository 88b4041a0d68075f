package io.mongocdc.workflows.model;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import io.temporal.common.converter.JacksonJsonPayloadConverter;
import java.lang.reflect.RecordComponent;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Binds a decoded JSON value (maps, lists, strings, numbers, booleans, as the data converter
 * hands a raw parameter to the workflow) to a model record, with Temporal's own Jackson
 * configuration, so the result is what the SDK would have bound. What it adds is the answer
 * when the value does not fit: one line naming the field and what is wrong with it, in the
 * operator's terms, never Jackson's class names or parser positions.
 *
 * <p>Deterministic: no I/O, and the same value always gives the same result or message.
 */
public final class JsonInput {

  private static final ObjectMapper JSON = JacksonJsonPayloadConverter.newDefaultObjectMapper();

  private JsonInput() {}

  /**
   * Binds {@code json} to {@code type}.
   *
   * @param root what the value is, to name it when the problem is the value itself ("the input")
   * @throws IllegalArgumentException naming the field that does not fit and why
   */
  public static <T> T read(Object json, Class<T> type, String root) {
    try {
      return JSON.treeToValue(JSON.valueToTree(json), type);
    } catch (UnrecognizedPropertyException e) {
      List<JsonMappingException.Reference> path = e.getPath();
      String owner = render(path.subList(0, Math.max(0, path.size() - 1)), root);
      return reject(owner + " has an unknown field " + JsonText.of(e.getPropertyName()) + knownFields(e));
    } catch (InvalidFormatException e) {
      return reject(render(e.getPath(), root) + " must be " + expected(e.getTargetType()) + ", got "
          + JsonText.of(e.getValue()));
    } catch (MismatchedInputException e) {
      return reject(render(e.getPath(), root) + " must be " + expected(e.getTargetType()) + ", got "
          + JsonText.of(valueAt(json, e.getPath())));
    } catch (JsonMappingException e) {
      // A value the record itself refused (its constructor threw): say where, and its reason.
      Throwable cause = e.getCause();
      return reject(render(e.getPath(), root) + " is not valid"
          + (cause instanceof IllegalArgumentException && cause.getMessage() != null ? ": " + cause.getMessage() : ""));
    } catch (JsonProcessingException | IllegalArgumentException e) {
      return reject(root + " cannot be read as JSON");
    }
  }

  /** Throws; typed so each catch can end in {@code return reject(...)}. */
  private static <T> T reject(String problem) {
    throw new IllegalArgumentException(problem);
  }

  /** {@code config.settings.batchSize}, {@code config.collections[1]}; {@code root} for the root. */
  private static String render(List<JsonMappingException.Reference> path, String root) {
    StringBuilder out = new StringBuilder();
    for (JsonMappingException.Reference reference : path) {
      if (reference.getFieldName() != null) {
        out.append(out.isEmpty() ? "" : ".").append(reference.getFieldName());
      } else if (reference.getIndex() >= 0) {
        out.append('[').append(reference.getIndex()).append(']');
      }
    }
    return out.isEmpty() ? root : out.toString();
  }

  /** The fields the object takes, in the order its record declares them. */
  private static String knownFields(UnrecognizedPropertyException e) {
    Class<?> owner = e.getReferringClass();
    Stream<String> names = owner != null && owner.isRecord()
        ? Stream.of(owner.getRecordComponents()).map(RecordComponent::getName)
        : e.getKnownPropertyIds() == null ? Stream.empty() : e.getKnownPropertyIds().stream().map(String::valueOf).sorted();
    String known = names.collect(Collectors.joining(", "));
    return known.isEmpty() ? "" : " (known fields: " + known + ")";
  }

  private static String expected(Class<?> type) {
    if (type == null) {
      return "of another type";
    }
    if (type == int.class || type == Integer.class || type == long.class || type == Long.class
        || type == short.class || type == Short.class) {
      return "a whole number";
    }
    if (type == boolean.class || type == Boolean.class) {
      return "true or false";
    }
    if (type == String.class) {
      return "a string";
    }
    if (Collection.class.isAssignableFrom(type) || type.isArray()) {
      return "a list";
    }
    if (Number.class.isAssignableFrom(type) || type == double.class || type == float.class) {
      return "a number";
    }
    if (type.isEnum()) {
      return SettingType.Word.alternatives(
          Stream.of(type.getEnumConstants()).map(constant -> ((Enum<?>) constant).name()).toList());
    }
    return "a JSON object";
  }

  /** The value the path leads to in the decoded input, to show what was sent. */
  private static Object valueAt(Object json, List<JsonMappingException.Reference> path) {
    Object value = json;
    for (JsonMappingException.Reference reference : path) {
      if (value instanceof Map<?, ?> map && reference.getFieldName() != null) {
        value = map.get(reference.getFieldName());
      } else if (value instanceof List<?> list && reference.getIndex() >= 0 && reference.getIndex() < list.size()) {
        value = list.get(reference.getIndex());
      } else {
        return null;
      }
    }
    return value;
  }
}
