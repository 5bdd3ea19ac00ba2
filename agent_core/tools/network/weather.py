"""get_weather: Open-Meteo geocoding + daily forecast (or archive for older dates), keyless, units stated.

Dates are the city's local dates. The forecast API covers the last 92 days and the next 15 (16 days including
today); older dates, back to 1940, come from the archive API; later dates are refused with the last valid one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from datetime import date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from agent_core.env_settings import env_settings
from agent_core.tools.network.http import DEFAULT_TIMEOUT, HttpClient, HttpError, env_timeout, tool_error
from agent_core.tools.tool import Tool, ToolError, ToolOutput

GEOCODING_URL = "https://geocoding-api.open-meteo.com/v1/search"
FORECAST_URL = "https://api.open-meteo.com/v1/forecast"
ARCHIVE_URL = "https://archive-api.open-meteo.com/v1/archive"

FORECAST_DAYS_AHEAD = 15
"""Open-Meteo forecasts 16 days: today and 15 more."""
FORECAST_DAYS_BACK = 92
"""The forecast API also serves the last 92 days; before that the archive API is used."""
ARCHIVE_START = date(1940, 1, 1)
SERVICE = "weather service"

_DAILY = ("weather_code", "temperature_2m_max", "temperature_2m_min", "precipitation_sum", "wind_speed_10m_max")
_UNITS = {"temperature_unit": "celsius", "wind_speed_unit": "kmh", "precipitation_unit": "mm"}
_DEFAULT_UNITS = {"temperature_2m_max": "°C", "precipitation_sum": "mm", "wind_speed_10m_max": "km/h"}

WEATHER_CODES = {
    0: "clear sky",
    1: "mainly clear",
    2: "partly cloudy",
    3: "overcast",
    45: "fog",
    48: "depositing rime fog",
    51: "light drizzle",
    53: "moderate drizzle",
    55: "dense drizzle",
    56: "light freezing drizzle",
    57: "dense freezing drizzle",
    61: "slight rain",
    63: "moderate rain",
    65: "heavy rain",
    66: "light freezing rain",
    67: "heavy freezing rain",
    71: "slight snowfall",
    73: "moderate snowfall",
    75: "heavy snowfall",
    77: "snow grains",
    80: "slight rain showers",
    81: "moderate rain showers",
    82: "violent rain showers",
    85: "slight snow showers",
    86: "heavy snow showers",
    95: "thunderstorm",
    96: "thunderstorm with slight hail",
    99: "thunderstorm with heavy hail",
}
"""WMO weather interpretation codes, as Open-Meteo documents them."""


@dataclass(frozen=True)
class Place:
    """A geocoded place."""

    name: str
    country: str
    region: str
    latitude: float
    longitude: float
    timezone: str
    country_code: str = ""

    @property
    def label(self) -> str:
        """Name, region and country ("Paris, Île-de-France, France") without empty or repeated parts."""
        parts = [p for p in (self.name, self.region, self.country) if p]
        return ", ".join(dict.fromkeys(parts))

    def today(self) -> date:
        """Today's date where the place is."""
        try:
            return datetime.now(ZoneInfo(self.timezone)).date()
        except (ZoneInfoNotFoundError, ValueError):
            return datetime.now(ZoneInfo("UTC")).date()


class OpenMeteo:
    """A client for Open-Meteo's geocoding, forecast and archive APIs with configurable base URLs."""

    def __init__(
        self,
        *,
        geocoding_url: str = GEOCODING_URL,
        forecast_url: str = FORECAST_URL,
        archive_url: str = ARCHIVE_URL,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> None:
        self.geocoding_url = geocoding_url
        self.forecast_url = forecast_url
        self.archive_url = archive_url
        self.timeout = timeout
        self.client = HttpClient(timeout=timeout)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> OpenMeteo:
        """Base URLs from SPARROW_GEOCODING_URL / SPARROW_FORECAST_URL / SPARROW_WEATHER_ARCHIVE_URL."""
        env = env_settings(environ)
        return cls(
            geocoding_url=env.sparrow_geocoding_url or GEOCODING_URL,
            forecast_url=env.sparrow_forecast_url or FORECAST_URL,
            archive_url=env.sparrow_weather_archive_url or ARCHIVE_URL,
            timeout=env_timeout(environ),
        )

    def find_place(self, query: str) -> Place:
        """The best match for "City" or "City, Country/Region"; ToolError when nothing matches."""
        name, _, qualifier = (part.strip() for part in query.partition(","))
        if not name:
            raise ToolError("get_weather: the city name is empty")
        params = {"name": name, "count": 10, "language": "en", "format": "json"}
        data = _json_object(self.client.get(self.geocoding_url, params=params).json())
        places = [_place(item) for item in data.get("results") or [] if isinstance(item, dict)]
        places = [p for p in places if p is not None]
        if not places:
            raise ToolError(f"get_weather: no place called {name!r} was found; check the spelling")
        if not qualifier:
            return places[0]
        wanted = qualifier.lower()
        matching = [p for p in places if any(wanted == v.lower() or v.lower().startswith(wanted) for v in _keys(p))]
        if not matching:
            options = "; ".join(p.label for p in places[:3])
            raise ToolError(f"get_weather: no {name!r} in {qualifier!r} was found. Known places: {options}")
        return matching[0]

    def daily(self, place: Place, day: date, *, archive: bool) -> dict[str, Any]:
        """The daily values for ``day`` as {variable: value} plus "units"; from the archive API if asked."""
        params: dict[str, Any] = {
            "latitude": place.latitude,
            "longitude": place.longitude,
            "daily": ",".join(_DAILY if archive else (*_DAILY, "precipitation_probability_max")),
            "timezone": place.timezone or "auto",
            "start_date": day.isoformat(),
            "end_date": day.isoformat(),
            **_UNITS,
        }
        data = _json_object(self.client.get(self.archive_url if archive else self.forecast_url, params=params).json())
        daily = data.get("daily")
        if (
            not isinstance(daily, dict)
            or not isinstance(daily.get("time"), list)
            or day.isoformat() not in daily["time"]
        ):
            raise ToolError(f"{SERVICE} failed: the answer has no daily values for {day.isoformat()}")
        index = daily["time"].index(day.isoformat())
        values = {k: v[index] for k, v in daily.items() if isinstance(v, list) and len(v) > index}
        units = data.get("daily_units")
        units = units if isinstance(units, dict) else {}
        return {**values, "units": {**_DEFAULT_UNITS, **units}}


def make_get_weather(client: OpenMeteo | None = None, *, name: str = "get_weather") -> Tool:
    """A get_weather tool using ``client``, or else a client configured from the environment at each call."""

    def get_weather(city: str, date: str | None = None) -> ToolOutput:
        """Get the weather of one day for a city: conditions, min/max temperature (°C), precipitation (mm), wind.

        Args:
            city: City name, optionally with country or region to disambiguate, e.g. "Paris, France".
            date: The day as YYYY-MM-DD, "today", "tomorrow" or "yesterday" (the city's local date); default today.
        """
        return weather_report(client or _client_from_env(), city, date)

    return Tool(get_weather, name=name)


def weather_report(client: OpenMeteo, city: str, when: str | None) -> ToolOutput:
    """Geocode ``city``, check the date against what Open-Meteo serves, and describe that day."""
    try:
        place = client.find_place(city)
        day = parse_day(when, place.today())
        archive = check_range(day, place.today())
        values = client.daily(place, day, archive=archive)
    except HttpError as exc:
        raise tool_error(SERVICE, exc) from None
    kind = "recorded" if archive or day < place.today() else "forecast"
    details = {"place": asdict(place), "date": day.isoformat(), "kind": kind, **values}
    return ToolOutput(describe(place, day, kind, values), details)


def parse_day(text: str | None, today: date) -> date:
    """A date from YYYY-MM-DD or today/tomorrow/yesterday; ToolError otherwise."""
    value = (text or "today").strip().lower()
    relative = {"today": 0, "tomorrow": 1, "yesterday": -1}
    if value in relative:
        return today + timedelta(days=relative[value])
    try:
        return date.fromisoformat(value.replace("/", "-"))
    except ValueError:
        raise ToolError(f'get_weather: date {text!r} is not YYYY-MM-DD, "today", "tomorrow" or "yesterday"') from None


def check_range(day: date, today: date) -> bool:
    """True when ``day`` needs the archive API; ToolError when Open-Meteo has no data for it."""
    last = today + timedelta(days=FORECAST_DAYS_AHEAD)
    if day > last:
        raise ToolError(
            f"get_weather: {day.isoformat()} is too far ahead; forecasts reach {FORECAST_DAYS_AHEAD} days "
            f"after today ({today.isoformat()}), so the last possible date is {last.isoformat()}"
        )
    if day < ARCHIVE_START:
        raise ToolError(f"get_weather: weather records start on {ARCHIVE_START.isoformat()}")
    return day < today - timedelta(days=FORECAST_DAYS_BACK)


def describe(place: Place, day: date, kind: str, values: dict[str, Any]) -> str:
    """One readable paragraph with units, e.g. "Paris, France — 2024-05-20 (Monday, forecast): light rain; ..."."""
    units = values["units"]
    code = values.get("weather_code")
    sky = WEATHER_CODES.get(code, f"weather code {code}") if code is not None else "conditions unknown"
    parts = [
        f"temperature {_num(values.get('temperature_2m_min'))} to {_num(values.get('temperature_2m_max'))} "
        f"{units.get('temperature_2m_max', '°C')}",
        f"precipitation {_num(values.get('precipitation_sum'))} {units.get('precipitation_sum', 'mm')}"
        + _chance(values.get("precipitation_probability_max")),
        f"wind up to {_num(values.get('wind_speed_10m_max'))} {units.get('wind_speed_10m_max', 'km/h')}",
    ]
    where = f"{place.label} ({place.latitude:.2f}, {place.longitude:.2f})"
    return f"{where} — {day.isoformat()} ({day:%A}, {kind}): {sky}; {'; '.join(parts)}."


def _num(value: Any) -> str:
    return f"{round(value, 1) + 0.0:.1f}" if isinstance(value, int | float) else "n/a"


def _chance(value: Any) -> str:
    return f" (chance {value:.0f}%)" if isinstance(value, int | float) else ""


def _place(item: dict[str, Any]) -> Place | None:
    try:
        latitude, longitude = float(item["latitude"]), float(item["longitude"])
    except (KeyError, TypeError, ValueError):
        return None
    return Place(
        name=str(item.get("name") or ""),
        country=str(item.get("country") or item.get("country_code") or ""),
        country_code=str(item.get("country_code") or ""),
        region=str(item.get("admin1") or ""),
        latitude=latitude,
        longitude=longitude,
        timezone=str(item.get("timezone") or "UTC"),
    )


def _keys(place: Place) -> list[str]:
    return [v for v in (place.country, place.country_code, place.region) if v]


def _json_object(data: Any) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise ToolError(f"{SERVICE} failed: the answer is not a JSON object")
    return data


def _client_from_env() -> OpenMeteo:
    try:
        return OpenMeteo.from_env()
    except ValueError as exc:
        raise ToolError(f"{SERVICE} unavailable: {exc}") from None


get_weather = make_get_weather()
"""The default tool: Open-Meteo, base URLs from the environment."""
