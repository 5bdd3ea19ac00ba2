"""get_weather against a local fake of Open-Meteo's geocoding, forecast and archive APIs."""

from __future__ import annotations

import time
from datetime import date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from agent_core.tools.network.weather import OpenMeteo, get_weather, make_get_weather
from agent_core.tools.tool import ToolError
from tests.tools.conftest import FakeWeb, Reply, Seen

BERLIN = {
    "id": 2950159,
    "name": "Berlin",
    "latitude": 52.52437,
    "longitude": 13.41053,
    "country_code": "DE",
    "admin1": "Land Berlin",
    "timezone": "Europe/Berlin",
    "country": "Germany",
}
PARIS_FR = {
    "name": "Paris",
    "latitude": 48.85341,
    "longitude": 2.3488,
    "country_code": "FR",
    "admin1": "Île-de-France",
    "timezone": "Europe/Paris",
    "country": "France",
}
PARIS_TX = {
    "name": "Paris",
    "latitude": 33.66094,
    "longitude": -95.55551,
    "country_code": "US",
    "admin1": "Texas",
    "timezone": "America/Chicago",
    "country": "United States",
}
UNITS = {
    "time": "iso8601",
    "weather_code": "wmo code",
    "temperature_2m_max": "°C",
    "temperature_2m_min": "°C",
    "precipitation_sum": "mm",
    "wind_speed_10m_max": "km/h",
    "precipitation_probability_max": "%",
}


def berlin_today() -> date:
    return datetime.now(ZoneInfo("Europe/Berlin")).date()


def daily_for(seen: Seen, **values: Any) -> Reply:
    """A forecast/archive answer for the day the request asked about."""
    day = seen.query["start_date"]
    daily = {
        "time": [day],
        "weather_code": [61],
        "temperature_2m_max": [21.4],
        "temperature_2m_min": [11.23],
        "precipitation_sum": [3.5],
        "wind_speed_10m_max": [14.8],
        "precipitation_probability_max": [80],
    }
    daily.update({k: [v] for k, v in values.items()})
    return Reply(body={"latitude": 52.52, "longitude": 13.42, "daily_units": UNITS, "daily": daily})


@pytest.fixture
def meteo(fake_web: FakeWeb) -> OpenMeteo:
    fake_web.route(
        "/v1/search",
        lambda seen: Reply(
            body={
                "results": [BERLIN]
                if seen.query["name"] == "Berlin"
                else [PARIS_FR, PARIS_TX]
                if seen.query["name"] == "Paris"
                else []
            }
        ),
    )
    fake_web.route("/v1/forecast", daily_for)
    fake_web.route("/v1/archive", lambda seen: daily_for(seen, precipitation_probability_max=None))
    return OpenMeteo(
        geocoding_url=f"{fake_web.url}/v1/search",
        forecast_url=f"{fake_web.url}/v1/forecast",
        archive_url=f"{fake_web.url}/v1/archive",
        timeout=2,
    )


def test_todays_forecast_with_units(fake_web: FakeWeb, meteo: OpenMeteo) -> None:
    output = make_get_weather(meteo).invoke({"city": "Berlin"})
    today = berlin_today()
    assert output.content == (
        f"Berlin, Land Berlin, Germany (52.52, 13.41) — {today.isoformat()} ({today:%A}, forecast): slight rain; "
        "temperature 11.2 to 21.4 °C; precipitation 3.5 mm (chance 80%); wind up to 14.8 km/h."
    )
    geocode, forecast = fake_web.requests
    assert geocode.query == {"name": "Berlin", "count": "10", "language": "en", "format": "json"}
    assert forecast.query == {
        "latitude": "52.52437",
        "longitude": "13.41053",
        "daily": "weather_code,temperature_2m_max,temperature_2m_min,precipitation_sum,wind_speed_10m_max,"
        "precipitation_probability_max",
        "timezone": "Europe/Berlin",
        "start_date": today.isoformat(),
        "end_date": today.isoformat(),
        "temperature_unit": "celsius",
        "wind_speed_unit": "kmh",
        "precipitation_unit": "mm",
    }
    assert output.details["kind"] == "forecast" and output.details["weather_code"] == 61
    assert output.details["units"]["temperature_2m_max"] == "°C"


def test_country_qualifier_picks_the_right_place(fake_web: FakeWeb, meteo: OpenMeteo) -> None:
    tool = make_get_weather(meteo)
    assert tool.invoke({"city": "Paris"}).details["place"]["country"] == "France"
    assert tool.invoke({"city": "Paris, Texas"}).details["place"]["region"] == "Texas"
    assert tool.invoke({"city": "Paris, us"}).details["place"]["country"] == "United States"
    with pytest.raises(ToolError) as caught:
        tool.invoke({"city": "Paris, Japan"})
    assert str(caught.value) == (
        "get_weather: no 'Paris' in 'Japan' was found. Known places: Paris, Île-de-France, France; "
        "Paris, Texas, United States"
    )


def test_unknown_city(fake_web: FakeWeb, meteo: OpenMeteo) -> None:
    with pytest.raises(ToolError, match=r"^get_weather: no place called 'Atlantis' was found; check the spelling$"):
        make_get_weather(meteo).invoke({"city": "Atlantis"})
    assert fake_web.paths() == ["/v1/search"]


def test_relative_and_explicit_dates(fake_web: FakeWeb, meteo: OpenMeteo) -> None:
    tool = make_get_weather(meteo)
    today = berlin_today()
    assert tool.invoke({"city": "Berlin", "date": "tomorrow"}).details["date"] == (today + timedelta(1)).isoformat()
    yesterday = tool.invoke({"city": "Berlin", "date": "yesterday"})
    assert (yesterday.details["date"], yesterday.details["kind"]) == ((today - timedelta(1)).isoformat(), "recorded")
    last = (today + timedelta(15)).isoformat()
    assert tool.invoke({"city": "Berlin", "date": last}).details["date"] == last
    assert fake_web.paths().count("/v1/forecast") == 3


def test_dates_beyond_the_forecast_are_refused_before_asking(fake_web: FakeWeb, meteo: OpenMeteo) -> None:
    today = berlin_today()
    too_far = today + timedelta(16)
    with pytest.raises(ToolError) as caught:
        make_get_weather(meteo).invoke({"city": "Berlin", "date": too_far.isoformat()})
    assert str(caught.value) == (
        f"get_weather: {too_far.isoformat()} is too far ahead; forecasts reach 15 days after today "
        f"({today.isoformat()}), so the last possible date is {(today + timedelta(15)).isoformat()}"
    )
    assert fake_web.paths() == ["/v1/search"]


def test_old_dates_come_from_the_archive(fake_web: FakeWeb, meteo: OpenMeteo) -> None:
    output = make_get_weather(meteo).invoke({"city": "Berlin", "date": "2003-08-08"})
    assert output.content == (
        "Berlin, Land Berlin, Germany (52.52, 13.41) — 2003-08-08 (Friday, recorded): slight rain; "
        "temperature 11.2 to 21.4 °C; precipitation 3.5 mm; wind up to 14.8 km/h."
    )
    archive = fake_web.requests[-1]
    assert archive.path == "/v1/archive"
    assert "precipitation_probability_max" not in archive.query["daily"]


@pytest.mark.parametrize(
    ("when", "message"),
    [
        ("next week", 'get_weather: date \'next week\' is not YYYY-MM-DD, "today", "tomorrow" or "yesterday"'),
        ("2024-02-30", "get_weather: date '2024-02-30' is not YYYY-MM-DD"),
        ("1899-12-31", "get_weather: weather records start on 1940-01-01"),
    ],
)
def test_bad_dates(meteo: OpenMeteo, when: str, message: str) -> None:
    with pytest.raises(ToolError) as caught:
        make_get_weather(meteo).invoke({"city": "Berlin", "date": when})
    assert str(caught.value).startswith(message)


def test_missing_values_and_unknown_codes(fake_web: FakeWeb, meteo: OpenMeteo) -> None:
    fake_web.route(
        "/v1/forecast", lambda seen: daily_for(seen, weather_code=42, temperature_2m_max=None, precipitation_sum=-0.01)
    )
    text = make_get_weather(meteo).invoke({"city": "Berlin"}).content
    assert text.endswith(
        "weather code 42; temperature 11.2 to n/a °C; precipitation 0.0 mm (chance 80%); wind up to 14.8 km/h."
    )


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        (
            Reply(400, {"error": True, "reason": "Latitude must be in range of -90 to 90°. Given: 91.0."}),
            "weather service failed: 127.0.0.1 answered HTTP 400 Bad Request: Latitude must be in range of -90 to 90°. "
            "Given: 91.0.",
        ),
        (
            Reply(body=b"<html>oops", content_type="application/json"),
            "weather service failed: 127.0.0.1 sent an unreadable answer (not valid JSON)",
        ),
        (Reply(body=["not", "an", "object"]), "weather service failed: the answer is not a JSON object"),
        (Reply(body={"daily": {"time": []}}), "weather service failed: the answer has no daily values for "),
        (Reply(body={"hourly": {}}), "weather service failed: the answer has no daily values for "),
    ],
)
def test_forecast_failures(fake_web: FakeWeb, meteo: OpenMeteo, reply: Reply, message: str) -> None:
    fake_web.route("/v1/forecast", reply)
    with pytest.raises(ToolError) as caught:
        make_get_weather(meteo).invoke({"city": "Berlin"})
    assert str(caught.value).startswith(message)


def test_no_network_and_slow_service(fake_web: FakeWeb, closed_port: int) -> None:
    offline = OpenMeteo(geocoding_url=f"http://127.0.0.1:{closed_port}/v1/search", timeout=2)
    with pytest.raises(ToolError) as caught:
        make_get_weather(offline).invoke({"city": "Berlin"})
    assert str(caught.value) == (
        f"weather service unavailable: no network connection (connection to 127.0.0.1:{closed_port} refused)"
    )
    fake_web.route("/v1/search", Reply(body={"results": [BERLIN]}, delay=10))
    slow = OpenMeteo(geocoding_url=f"{fake_web.url}/v1/search", timeout=0.3)
    started = time.monotonic()
    with pytest.raises(ToolError, match=r"^weather service unavailable: no answer from 127\.0\.0\.1 within 0\.3 s$"):
        make_get_weather(slow).invoke({"city": "Berlin"})
    assert time.monotonic() - started < 1.5


def test_default_tool_reads_base_urls_from_the_environment(
    fake_web: FakeWeb, meteo: OpenMeteo, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SPARROW_GEOCODING_URL", f"{fake_web.url}/v1/search")
    monkeypatch.setenv("SPARROW_FORECAST_URL", f"{fake_web.url}/v1/forecast")
    assert get_weather.invoke({"city": "Berlin"}).details["place"]["name"] == "Berlin"
    assert fake_web.paths() == ["/v1/search", "/v1/forecast"]
    monkeypatch.setenv("SPARROW_HTTP_TIMEOUT", "never")
    with pytest.raises(ToolError, match="unavailable: SPARROW_HTTP_TIMEOUT must be a number, got 'never'"):
        get_weather.invoke({"city": "Berlin"})


def test_schema_states_units_and_optional_date() -> None:
    parameters = get_weather.parameters
    assert parameters["required"] == ["city"]
    assert "°C" in get_weather.description and "mm" in get_weather.description
