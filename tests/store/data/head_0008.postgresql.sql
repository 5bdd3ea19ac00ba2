-- A Sparrow database at schema revision 0008_experiment_judge (the head before migrations were squashed), made by
-- main at e700bd5 on the throwaway cluster (sessions with runs, a fork, an imported copy, an interrupted run, snapshots,
-- share links, memories, a dataset and a judged experiment); pg_dump --inserts --no-owner --no-privileges.
-- See tests/store/test_migrations.py.
--
-- PostgreSQL database dump
--


-- Dumped from database version 15.18 (Debian 15.18-0+deb12u1)
-- Dumped by pg_dump version 15.18 (Debian 15.18-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

--
-- Name: pg_trgm; Type: EXTENSION; Schema: -; Owner: -
--

CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public;


--
-- Name: EXTENSION pg_trgm; Type: COMMENT; Schema: -; Owner: -
--

COMMENT ON EXTENSION pg_trgm IS 'text similarity measurement and index searching based on trigrams';


SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: dataset_items; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.dataset_items (
    dataset_id character varying(64) NOT NULL,
    "position" integer NOT NULL,
    key character varying(64) NOT NULL,
    data json NOT NULL
);


--
-- Name: datasets; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.datasets (
    id character varying(64) NOT NULL,
    name character varying(200) NOT NULL,
    version integer NOT NULL,
    description text NOT NULL,
    owner character varying(520),
    created_at double precision NOT NULL,
    item_count integer NOT NULL
);


--
-- Name: events; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.events (
    session_id character varying(64) NOT NULL,
    seq integer NOT NULL,
    run_id character varying(64) NOT NULL,
    type character varying(40) NOT NULL,
    ts double precision NOT NULL,
    payload text NOT NULL
);


--
-- Name: experiment_results; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.experiment_results (
    experiment_id character varying(64) NOT NULL,
    "position" integer NOT NULL,
    config_index integer NOT NULL,
    repeat integer NOT NULL,
    session_id character varying(64),
    run_id character varying(64),
    state character varying(20) NOT NULL,
    passed boolean,
    score double precision,
    scores json NOT NULL,
    failure character varying(40),
    cost double precision,
    worker character varying(200),
    started_at double precision NOT NULL,
    finished_at double precision
);


--
-- Name: experiments; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.experiments (
    id character varying(64) NOT NULL,
    name character varying(200) NOT NULL,
    dataset_id character varying(64) NOT NULL,
    configs json NOT NULL,
    repeats integer NOT NULL,
    concurrency integer NOT NULL,
    baseline_id character varying(64),
    status character varying(20) NOT NULL,
    owner character varying(520),
    created_at double precision NOT NULL,
    finished_at double precision,
    queue character varying(40),
    judge json
);


--
-- Name: memories; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.memories (
    id integer NOT NULL,
    scope character varying(64) NOT NULL,
    text text NOT NULL,
    text_hash character varying(64) NOT NULL,
    origin character varying(16) NOT NULL,
    source_session_id character varying(64),
    created_at double precision NOT NULL,
    owner character varying(520)
);


--
-- Name: memories_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.memories_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: memories_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.memories_id_seq OWNED BY public.memories.id;


--
-- Name: run_owners; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.run_owners (
    session_id character varying(64) NOT NULL,
    run_id character varying(64) NOT NULL,
    owner character varying(200) NOT NULL,
    heartbeat double precision NOT NULL,
    cancel_requested boolean NOT NULL
);


--
-- Name: runs; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.runs (
    session_id character varying(64) NOT NULL,
    run_id character varying(64) NOT NULL,
    started_by character varying(520) NOT NULL,
    started_at double precision NOT NULL
);


--
-- Name: sessions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.sessions (
    id character varying(64) NOT NULL,
    title character varying(200),
    created_at double precision NOT NULL,
    updated_at double precision NOT NULL,
    last_seq integer NOT NULL,
    config json NOT NULL,
    parent_id character varying(64),
    forked_from character varying(64),
    owner character varying(520),
    imported_at double precision
);


--
-- Name: share_links; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.share_links (
    id character varying(64) NOT NULL,
    token_hash character varying(64) NOT NULL,
    session_id character varying(64) NOT NULL,
    snapshot_id character varying(64),
    created_by character varying(520),
    created_at double precision NOT NULL,
    expires_at double precision,
    revoked_at double precision,
    allow_anonymous boolean NOT NULL
);


--
-- Name: snapshots; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.snapshots (
    id character varying(64) NOT NULL,
    session_id character varying(64) NOT NULL,
    name character varying(200) NOT NULL,
    created_at double precision NOT NULL,
    upto_seq integer NOT NULL,
    title character varying(200),
    config json NOT NULL,
    owner character varying(520)
);


--
-- Name: sparrow_alembic_version; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.sparrow_alembic_version (
    version_num character varying(32) NOT NULL
);


--
-- Name: sparrow_schema; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.sparrow_schema (
    id integer NOT NULL,
    version integer NOT NULL
);


--
-- Name: sparrow_schema_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.sparrow_schema_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: sparrow_schema_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.sparrow_schema_id_seq OWNED BY public.sparrow_schema.id;


--
-- Name: memories id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.memories ALTER COLUMN id SET DEFAULT nextval('public.memories_id_seq'::regclass);


--
-- Name: sparrow_schema id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sparrow_schema ALTER COLUMN id SET DEFAULT nextval('public.sparrow_schema_id_seq'::regclass);


--
-- Data for Name: dataset_items; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.dataset_items VALUES ('ds_e0d83810b0854d72', 0, 'add-1', '{"id": "add-1", "question": "What is 1 + 1?", "turns": [], "answer": null, "expect": [{"exact": null, "contains": null, "regex": null, "number": 2, "tolerance": 1e-09, "json_field": null, "equals": null, "tool_called": null, "tool_not_called": null, "max_steps": null, "no_format_retries": null, "max_cost": null, "max_latency_ms": null, "judge": null, "scorer": null, "case_sensitive": false}], "tags": [], "metadata": {}}');
INSERT INTO public.dataset_items VALUES ('ds_e0d83810b0854d72', 1, 'add-2', '{"id": "add-2", "question": "What is 2 + 2?", "turns": [], "answer": null, "expect": [{"exact": null, "contains": null, "regex": null, "number": 4, "tolerance": 1e-09, "json_field": null, "equals": null, "tool_called": null, "tool_not_called": null, "max_steps": null, "no_format_retries": null, "max_cost": null, "max_latency_ms": null, "judge": null, "scorer": null, "case_sensitive": false}], "tags": [], "metadata": {}}');


--
-- Data for Name: datasets; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.datasets VALUES ('ds_e0d83810b0854d72', 'adds', 1, 'two sums', 'https://issuer.example#alice', 1796318316.3186445, 2);


--
-- Data for Name: events; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.events VALUES ('ses_ec81f504b16c4fe0', 1, 'run_661f8d6be75f4d92', 'run_started', 1796318315.3056855, '{"type":"run_started","run_id":"run_661f8d6be75f4d92","ts":1796318315.3056855,"question":"What is 6*7?","model":"fake-arith","protocol":"react","tools":[{"type":"function","function":{"name":"calculator","description":"Evaluate arithmetic exactly: + - * / // % ** (or ^), parentheses, pi, e, tau, sqrt, log (natural, or log(x, base)), log10, log2, exp, sin, cos, tan, asin, acos, atan (radians), abs, round, floor, ceil, min, max, hypot.","parameters":{"additionalProperties":false,"properties":{"expression":{"description":"e.g. \"(2 + 3) * 4\" or \"sqrt(2) * pi\".","type":"string"}},"required":["expression"],"type":"object"}}},{"type":"function","function":{"name":"get_current_time","description":"Get the current date, time and weekday, optionally in a given time zone.","parameters":{"additionalProperties":false,"properties":{"timezone":{"anyOf":[{"type":"string"},{"type":"null"}],"default":null,"description":"IANA time zone name such as \"Asia/Shanghai\" or \"Europe/Paris\"; omit for UTC."}},"type":"object","required":[]}}},{"type":"function","function":{"name":"date_calculator","description":"Calculate with calendar dates: add or subtract days, count days between dates, or find a weekday.","parameters":{"additionalProperties":false,"properties":{"operation":{"description":"\"add\" or \"subtract\" (needs days), \"difference\" (needs other_date), or \"weekday\".","enum":["add","subtract","difference","weekday"],"type":"string"},"date":{"description":"The start date in ISO format YYYY-MM-DD, or \"today\".","type":"string"},"days":{"anyOf":[{"type":"integer"},{"type":"null"}],"default":null,"description":"Number of days to add or subtract (for add/subtract)."},"other_date":{"anyOf":[{"type":"string"},{"type":"null"}],"default":null,"description":"The second date YYYY-MM-DD (for difference): result is other_date minus date."}},"required":["operation","date"],"type":"object"}}}],"settings":{"max_steps":10,"time_limit":300.0,"tool_timeout":30.0,"max_observation_chars":2000,"temperature":0.0,"max_tokens":4096,"max_format_retries":2,"keep_steps":6,"memory_budget_tokens":3000,"delta_interval":0.03,"max_tools":null,"pinned_tools":[],"require_approval":true,"tool_approval":{},"repeat_policy":"redirect"}}');
INSERT INTO public.events VALUES ('ses_ec81f504b16c4fe0', 2, 'run_661f8d6be75f4d92', 'step_started', 1796318315.315822, '{"type":"step_started","run_id":"run_661f8d6be75f4d92","ts":1796318315.315822,"step":1,"offered_tools":["calculator","get_current_time","date_calculator"]}');
INSERT INTO public.events VALUES ('ses_ec81f504b16c4fe0', 3, 'run_661f8d6be75f4d92', 'model_finished', 1796318315.3183246, '{"type":"model_finished","run_id":"run_661f8d6be75f4d92","ts":1796318315.3183246,"step":1,"model":"fake-arith","text":"Thought: multiply\nAction: calculator\nAction Input: {\"expression\": \"6*7\"}","reasoning":"","thought":"multiply","tool_calls":[{"id":"call_1","name":"calculator","arguments":"{\"expression\": \"6*7\"}"}],"final_answer":null,"format_error":null,"error":null,"usage":{"prompt_tokens":451,"completion_tokens":18,"estimated":true},"latency_ms":0.34131999996134255,"ttft_ms":0.22110500003691413,"finish_reason":"stop","messages":[{"role":"system","content":"You are Sparrow: you solve tasks step by step with tools.\n\nYou have these tools:\n- calculator(expression: string): Evaluate arithmetic exactly: + - * / // % ** (or ^), parentheses, pi, e, tau, sqrt, log (natural, or log(x, base)), log10, log2, exp, sin, cos, tan, asin, acos, atan (radians), abs, round, floor, ceil, min, max, hypot.\n  expression: e.g. \"(2 + 3) * 4\" or \"sqrt(2) * pi\".\n- get_current_time(timezone?: string|null): Get the current date, time and weekday, optionally in a given time zone.\n  timezone: IANA time zone name such as \"Asia/Shanghai\" or \"Europe/Paris\"; omit for UTC.\n- date_calculator(operation: \"add\"|\"subtract\"|\"difference\"|\"weekday\", date: string, days?: integer|null, other_date?: string|null): Calculate with calendar dates: add or subtract days, count days between dates, or find a weekday.\n  operation: \"add\" or \"subtract\" (needs days), \"difference\" (needs other_date), or \"weekday\".\n  date: The start date in ISO format YYYY-MM-DD, or \"today\".\n  days: Number of days to add or subtract (for add/subtract).\n  other_date: The second date YYYY-MM-DD (for difference): result is other_date minus date.\n\nReply in one of these two forms, nothing else.\nThought: <your reasoning>\nAction: <a tool name>\nAction Input: <the arguments as a JSON object>\nor\nThought: <your reasoning>\nFinal Answer: <the answer>\n\nRules: one Action per reply; never write \"Observation:\" (the system does, with the tool''s result). Use a tool for math, dates, the time and facts you are unsure of. If a tool keeps failing, answer with what you have and say what is missing. Answer in the question''s language.\n\nExample:\nThought: I need 0.17 * 2340.\nAction: calculator\nAction Input: {\"expression\": \"0.17 * 2340\"}\nObservation: 397.8\nThought: Done.\nFinal Answer: 397.8"},{"role":"user","content":"What is 6*7?"}],"messages_kept":0}');
INSERT INTO public.events VALUES ('ses_ec81f504b16c4fe0', 4, 'run_661f8d6be75f4d92', 'tool_started', 1796318315.3241343, '{"type":"tool_started","run_id":"run_661f8d6be75f4d92","ts":1796318315.3241343,"step":1,"call_id":"call_1","tool":"calculator","arguments":{"expression":"6*7"}}');
INSERT INTO public.events VALUES ('ses_ec81f504b16c4fe0', 5, 'run_661f8d6be75f4d92', 'tool_finished', 1796318315.3257918, '{"type":"tool_finished","run_id":"run_661f8d6be75f4d92","ts":1796318315.3257918,"step":1,"call_id":"call_1","tool":"calculator","output":"42","details":null,"error":null,"duration_ms":0.07963899997776025,"truncated":false}');
INSERT INTO public.events VALUES ('ses_ec81f504b16c4fe0', 6, 'run_661f8d6be75f4d92', 'step_started', 1796318315.3271923, '{"type":"step_started","run_id":"run_661f8d6be75f4d92","ts":1796318315.3271923,"step":2,"offered_tools":["calculator","get_current_time","date_calculator"]}');
INSERT INTO public.events VALUES ('ses_ec81f504b16c4fe0', 7, 'run_661f8d6be75f4d92', 'model_finished', 1796318315.3287578, '{"type":"model_finished","run_id":"run_661f8d6be75f4d92","ts":1796318315.3287578,"step":2,"model":"fake-arith","text":"Thought: I have it.\nFinal Answer: 42","reasoning":"","thought":"I have it.","tool_calls":[],"final_answer":"42","format_error":null,"error":null,"usage":{"prompt_tokens":480,"completion_tokens":9,"estimated":true},"latency_ms":0.12276999996174709,"ttft_ms":0.04083700002865953,"finish_reason":"stop","messages":[{"role":"assistant","content":"Thought: multiply\nAction: calculator\nAction Input: {\"expression\": \"6*7\"}"},{"role":"user","content":"Observation: 42"}],"messages_kept":2}');
INSERT INTO public.events VALUES ('ses_ec81f504b16c4fe0', 8, 'run_661f8d6be75f4d92', 'final_answer', 1796318315.3300576, '{"type":"final_answer","run_id":"run_661f8d6be75f4d92","ts":1796318315.3300576,"step":2,"text":"42"}');
INSERT INTO public.events VALUES ('ses_ec81f504b16c4fe0', 9, 'run_661f8d6be75f4d92', 'run_finished', 1796318315.3312414, '{"type":"run_finished","run_id":"run_661f8d6be75f4d92","ts":1796318315.3312414,"status":"completed","final_answer":"42","error":null,"steps":2,"tool_calls":1,"usage":{"prompt_tokens":931,"completion_tokens":27,"estimated":true},"duration_ms":26.167046999944432}');
INSERT INTO public.events VALUES ('ses_ec81f504b16c4fe0', 10, 'run_eb6d2e45f6a04fec', 'run_started', 1796318315.3592272, '{"type":"run_started","run_id":"run_eb6d2e45f6a04fec","ts":1796318315.3592272,"question":"Add 8 to that","model":"fake-arith","protocol":"react","tools":[{"type":"function","function":{"name":"calculator","description":"Evaluate arithmetic exactly: + - * / // % ** (or ^), parentheses, pi, e, tau, sqrt, log (natural, or log(x, base)), log10, log2, exp, sin, cos, tan, asin, acos, atan (radians), abs, round, floor, ceil, min, max, hypot.","parameters":{"additionalProperties":false,"properties":{"expression":{"description":"e.g. \"(2 + 3) * 4\" or \"sqrt(2) * pi\".","type":"string"}},"required":["expression"],"type":"object"}}},{"type":"function","function":{"name":"get_current_time","description":"Get the current date, time and weekday, optionally in a given time zone.","parameters":{"additionalProperties":false,"properties":{"timezone":{"anyOf":[{"type":"string"},{"type":"null"}],"default":null,"description":"IANA time zone name such as \"Asia/Shanghai\" or \"Europe/Paris\"; omit for UTC."}},"type":"object","required":[]}}},{"type":"function","function":{"name":"date_calculator","description":"Calculate with calendar dates: add or subtract days, count days between dates, or find a weekday.","parameters":{"additionalProperties":false,"properties":{"operation":{"description":"\"add\" or \"subtract\" (needs days), \"difference\" (needs other_date), or \"weekday\".","enum":["add","subtract","difference","weekday"],"type":"string"},"date":{"description":"The start date in ISO format YYYY-MM-DD, or \"today\".","type":"string"},"days":{"anyOf":[{"type":"integer"},{"type":"null"}],"default":null,"description":"Number of days to add or subtract (for add/subtract)."},"other_date":{"anyOf":[{"type":"string"},{"type":"null"}],"default":null,"description":"The second date YYYY-MM-DD (for difference): result is other_date minus date."}},"required":["operation","date"],"type":"object"}}}],"settings":{"max_steps":10,"time_limit":300.0,"tool_timeout":30.0,"max_observation_chars":2000,"temperature":0.0,"max_tokens":4096,"max_format_retries":2,"keep_steps":6,"memory_budget_tokens":3000,"delta_interval":0.03,"max_tools":null,"pinned_tools":[],"require_approval":true,"tool_approval":{},"repeat_policy":"redirect"}}');
INSERT INTO public.events VALUES ('ses_ec81f504b16c4fe0', 11, 'run_eb6d2e45f6a04fec', 'step_started', 1796318315.3631513, '{"type":"step_started","run_id":"run_eb6d2e45f6a04fec","ts":1796318315.3631513,"step":1,"offered_tools":["calculator","get_current_time","date_calculator"]}');
INSERT INTO public.events VALUES ('ses_4ded49b2b7544a75', 6, 'run_661f8d6be75f4d92', 'step_started', 1796318315.3271923, '{"type":"step_started","run_id":"run_661f8d6be75f4d92","ts":1796318315.3271923,"step":2,"offered_tools":["calculator","get_current_time","date_calculator"]}');
INSERT INTO public.events VALUES ('ses_b1e1d6e2b2964865', 9, 'run_512363cd2e9b4493', 'run_finished', 1796318316.6435695, '{"type":"run_finished","run_id":"run_512363cd2e9b4493","ts":1796318316.6435695,"status":"completed","final_answer":"The result is 4.","error":null,"steps":2,"tool_calls":1,"usage":{"prompt_tokens":1246,"completion_tokens":34,"estimated":true},"duration_ms":91.83500300002834}');
INSERT INTO public.events VALUES ('ses_ec81f504b16c4fe0', 12, 'run_eb6d2e45f6a04fec', 'model_finished', 1796318315.3651507, '{"type":"model_finished","run_id":"run_eb6d2e45f6a04fec","ts":1796318315.3651507,"step":1,"model":"fake-arith","text":"Thought: add\nAction: calculator\nAction Input: {\"expression\": \"42+8\"}","reasoning":"","thought":"add","tool_calls":[{"id":"call_1","name":"calculator","arguments":"{\"expression\": \"42+8\"}"}],"final_answer":null,"format_error":null,"error":null,"usage":{"prompt_tokens":466,"completion_tokens":17,"estimated":true},"latency_ms":0.29080500007694354,"ttft_ms":0.18707100002757215,"finish_reason":"stop","messages":[{"role":"system","content":"You are Sparrow: you solve tasks step by step with tools.\n\nYou have these tools:\n- calculator(expression: string): Evaluate arithmetic exactly: + - * / // % ** (or ^), parentheses, pi, e, tau, sqrt, log (natural, or log(x, base)), log10, log2, exp, sin, cos, tan, asin, acos, atan (radians), abs, round, floor, ceil, min, max, hypot.\n  expression: e.g. \"(2 + 3) * 4\" or \"sqrt(2) * pi\".\n- get_current_time(timezone?: string|null): Get the current date, time and weekday, optionally in a given time zone.\n  timezone: IANA time zone name such as \"Asia/Shanghai\" or \"Europe/Paris\"; omit for UTC.\n- date_calculator(operation: \"add\"|\"subtract\"|\"difference\"|\"weekday\", date: string, days?: integer|null, other_date?: string|null): Calculate with calendar dates: add or subtract days, count days between dates, or find a weekday.\n  operation: \"add\" or \"subtract\" (needs days), \"difference\" (needs other_date), or \"weekday\".\n  date: The start date in ISO format YYYY-MM-DD, or \"today\".\n  days: Number of days to add or subtract (for add/subtract).\n  other_date: The second date YYYY-MM-DD (for difference): result is other_date minus date.\n\nReply in one of these two forms, nothing else.\nThought: <your reasoning>\nAction: <a tool name>\nAction Input: <the arguments as a JSON object>\nor\nThought: <your reasoning>\nFinal Answer: <the answer>\n\nRules: one Action per reply; never write \"Observation:\" (the system does, with the tool''s result). Use a tool for math, dates, the time and facts you are unsure of. If a tool keeps failing, answer with what you have and say what is missing. Answer in the question''s language.\n\nExample:\nThought: I need 0.17 * 2340.\nAction: calculator\nAction Input: {\"expression\": \"0.17 * 2340\"}\nObservation: 397.8\nThought: Done.\nFinal Answer: 397.8"},{"role":"user","content":"What is 6*7?"},{"role":"assistant","content":"Final Answer: 42"},{"role":"user","content":"Add 8 to that"}],"messages_kept":0}');
INSERT INTO public.events VALUES ('ses_ec81f504b16c4fe0', 13, 'run_eb6d2e45f6a04fec', 'tool_started', 1796318315.3680167, '{"type":"tool_started","run_id":"run_eb6d2e45f6a04fec","ts":1796318315.3680167,"step":1,"call_id":"call_1","tool":"calculator","arguments":{"expression":"42+8"}}');
INSERT INTO public.events VALUES ('ses_ec81f504b16c4fe0', 14, 'run_eb6d2e45f6a04fec', 'tool_finished', 1796318315.3741417, '{"type":"tool_finished","run_id":"run_eb6d2e45f6a04fec","ts":1796318315.3741417,"step":1,"call_id":"call_1","tool":"calculator","output":"50","details":null,"error":null,"duration_ms":0.09507799995844834,"truncated":false}');
INSERT INTO public.events VALUES ('ses_ec81f504b16c4fe0', 15, 'run_eb6d2e45f6a04fec', 'step_started', 1796318315.3825474, '{"type":"step_started","run_id":"run_eb6d2e45f6a04fec","ts":1796318315.3825474,"step":2,"offered_tools":["calculator","get_current_time","date_calculator"]}');
INSERT INTO public.events VALUES ('ses_ec81f504b16c4fe0', 16, 'run_eb6d2e45f6a04fec', 'model_finished', 1796318315.3876379, '{"type":"model_finished","run_id":"run_eb6d2e45f6a04fec","ts":1796318315.3876379,"step":2,"model":"fake-arith","text":"Thought: I have it.\nFinal Answer: 50","reasoning":"","thought":"I have it.","tool_calls":[],"final_answer":"50","format_error":null,"error":null,"usage":{"prompt_tokens":494,"completion_tokens":9,"estimated":true},"latency_ms":0.17984700014039845,"ttft_ms":0.06518200007121777,"finish_reason":"stop","messages":[{"role":"assistant","content":"Thought: add\nAction: calculator\nAction Input: {\"expression\": \"42+8\"}"},{"role":"user","content":"Observation: 50"}],"messages_kept":4}');
INSERT INTO public.events VALUES ('ses_ec81f504b16c4fe0', 17, 'run_eb6d2e45f6a04fec', 'final_answer', 1796318315.3898687, '{"type":"final_answer","run_id":"run_eb6d2e45f6a04fec","ts":1796318315.3898687,"step":2,"text":"50"}');
INSERT INTO public.events VALUES ('ses_ec81f504b16c4fe0', 18, 'run_eb6d2e45f6a04fec', 'run_finished', 1796318315.3930643, '{"type":"run_finished","run_id":"run_eb6d2e45f6a04fec","ts":1796318315.3930643,"status":"completed","final_answer":"50","error":null,"steps":2,"tool_calls":1,"usage":{"prompt_tokens":960,"completion_tokens":26,"estimated":true},"duration_ms":33.902381000075366}');
INSERT INTO public.events VALUES ('ses_4ded49b2b7544a75', 1, 'run_661f8d6be75f4d92', 'run_started', 1796318315.3056855, '{"type":"run_started","run_id":"run_661f8d6be75f4d92","ts":1796318315.3056855,"question":"What is 6*7?","model":"fake-arith","protocol":"react","tools":[{"type":"function","function":{"name":"calculator","description":"Evaluate arithmetic exactly: + - * / // % ** (or ^), parentheses, pi, e, tau, sqrt, log (natural, or log(x, base)), log10, log2, exp, sin, cos, tan, asin, acos, atan (radians), abs, round, floor, ceil, min, max, hypot.","parameters":{"additionalProperties":false,"properties":{"expression":{"description":"e.g. \"(2 + 3) * 4\" or \"sqrt(2) * pi\".","type":"string"}},"required":["expression"],"type":"object"}}},{"type":"function","function":{"name":"get_current_time","description":"Get the current date, time and weekday, optionally in a given time zone.","parameters":{"additionalProperties":false,"properties":{"timezone":{"anyOf":[{"type":"string"},{"type":"null"}],"default":null,"description":"IANA time zone name such as \"Asia/Shanghai\" or \"Europe/Paris\"; omit for UTC."}},"type":"object","required":[]}}},{"type":"function","function":{"name":"date_calculator","description":"Calculate with calendar dates: add or subtract days, count days between dates, or find a weekday.","parameters":{"additionalProperties":false,"properties":{"operation":{"description":"\"add\" or \"subtract\" (needs days), \"difference\" (needs other_date), or \"weekday\".","enum":["add","subtract","difference","weekday"],"type":"string"},"date":{"description":"The start date in ISO format YYYY-MM-DD, or \"today\".","type":"string"},"days":{"anyOf":[{"type":"integer"},{"type":"null"}],"default":null,"description":"Number of days to add or subtract (for add/subtract)."},"other_date":{"anyOf":[{"type":"string"},{"type":"null"}],"default":null,"description":"The second date YYYY-MM-DD (for difference): result is other_date minus date."}},"required":["operation","date"],"type":"object"}}}],"settings":{"max_steps":10,"time_limit":300.0,"tool_timeout":30.0,"max_observation_chars":2000,"temperature":0.0,"max_tokens":4096,"max_format_retries":2,"keep_steps":6,"memory_budget_tokens":3000,"delta_interval":0.03,"max_tools":null,"pinned_tools":[],"require_approval":true,"tool_approval":{},"repeat_policy":"redirect"}}');
INSERT INTO public.events VALUES ('ses_4ded49b2b7544a75', 2, 'run_661f8d6be75f4d92', 'step_started', 1796318315.315822, '{"type":"step_started","run_id":"run_661f8d6be75f4d92","ts":1796318315.315822,"step":1,"offered_tools":["calculator","get_current_time","date_calculator"]}');
INSERT INTO public.events VALUES ('ses_4ded49b2b7544a75', 3, 'run_661f8d6be75f4d92', 'model_finished', 1796318315.3183246, '{"type":"model_finished","run_id":"run_661f8d6be75f4d92","ts":1796318315.3183246,"step":1,"model":"fake-arith","text":"Thought: multiply\nAction: calculator\nAction Input: {\"expression\": \"6*7\"}","reasoning":"","thought":"multiply","tool_calls":[{"id":"call_1","name":"calculator","arguments":"{\"expression\": \"6*7\"}"}],"final_answer":null,"format_error":null,"error":null,"usage":{"prompt_tokens":451,"completion_tokens":18,"estimated":true},"latency_ms":0.34131999996134255,"ttft_ms":0.22110500003691413,"finish_reason":"stop","messages":[{"role":"system","content":"You are Sparrow: you solve tasks step by step with tools.\n\nYou have these tools:\n- calculator(expression: string): Evaluate arithmetic exactly: + - * / // % ** (or ^), parentheses, pi, e, tau, sqrt, log (natural, or log(x, base)), log10, log2, exp, sin, cos, tan, asin, acos, atan (radians), abs, round, floor, ceil, min, max, hypot.\n  expression: e.g. \"(2 + 3) * 4\" or \"sqrt(2) * pi\".\n- get_current_time(timezone?: string|null): Get the current date, time and weekday, optionally in a given time zone.\n  timezone: IANA time zone name such as \"Asia/Shanghai\" or \"Europe/Paris\"; omit for UTC.\n- date_calculator(operation: \"add\"|\"subtract\"|\"difference\"|\"weekday\", date: string, days?: integer|null, other_date?: string|null): Calculate with calendar dates: add or subtract days, count days between dates, or find a weekday.\n  operation: \"add\" or \"subtract\" (needs days), \"difference\" (needs other_date), or \"weekday\".\n  date: The start date in ISO format YYYY-MM-DD, or \"today\".\n  days: Number of days to add or subtract (for add/subtract).\n  other_date: The second date YYYY-MM-DD (for difference): result is other_date minus date.\n\nReply in one of these two forms, nothing else.\nThought: <your reasoning>\nAction: <a tool name>\nAction Input: <the arguments as a JSON object>\nor\nThought: <your reasoning>\nFinal Answer: <the answer>\n\nRules: one Action per reply; never write \"Observation:\" (the system does, with the tool''s result). Use a tool for math, dates, the time and facts you are unsure of. If a tool keeps failing, answer with what you have and say what is missing. Answer in the question''s language.\n\nExample:\nThought: I need 0.17 * 2340.\nAction: calculator\nAction Input: {\"expression\": \"0.17 * 2340\"}\nObservation: 397.8\nThought: Done.\nFinal Answer: 397.8"},{"role":"user","content":"What is 6*7?"}],"messages_kept":0}');
INSERT INTO public.events VALUES ('ses_4ded49b2b7544a75', 4, 'run_661f8d6be75f4d92', 'tool_started', 1796318315.3241343, '{"type":"tool_started","run_id":"run_661f8d6be75f4d92","ts":1796318315.3241343,"step":1,"call_id":"call_1","tool":"calculator","arguments":{"expression":"6*7"}}');
INSERT INTO public.events VALUES ('ses_4ded49b2b7544a75', 5, 'run_661f8d6be75f4d92', 'tool_finished', 1796318315.3257918, '{"type":"tool_finished","run_id":"run_661f8d6be75f4d92","ts":1796318315.3257918,"step":1,"call_id":"call_1","tool":"calculator","output":"42","details":null,"error":null,"duration_ms":0.07963899997776025,"truncated":false}');
INSERT INTO public.events VALUES ('ses_4ded49b2b7544a75', 7, 'run_661f8d6be75f4d92', 'model_finished', 1796318315.3287578, '{"type":"model_finished","run_id":"run_661f8d6be75f4d92","ts":1796318315.3287578,"step":2,"model":"fake-arith","text":"Thought: I have it.\nFinal Answer: 42","reasoning":"","thought":"I have it.","tool_calls":[],"final_answer":"42","format_error":null,"error":null,"usage":{"prompt_tokens":480,"completion_tokens":9,"estimated":true},"latency_ms":0.12276999996174709,"ttft_ms":0.04083700002865953,"finish_reason":"stop","messages":[{"role":"assistant","content":"Thought: multiply\nAction: calculator\nAction Input: {\"expression\": \"6*7\"}"},{"role":"user","content":"Observation: 42"}],"messages_kept":2}');
INSERT INTO public.events VALUES ('ses_4ded49b2b7544a75', 8, 'run_661f8d6be75f4d92', 'final_answer', 1796318315.3300576, '{"type":"final_answer","run_id":"run_661f8d6be75f4d92","ts":1796318315.3300576,"step":2,"text":"42"}');
INSERT INTO public.events VALUES ('ses_4ded49b2b7544a75', 9, 'run_661f8d6be75f4d92', 'run_finished', 1796318315.3312414, '{"type":"run_finished","run_id":"run_661f8d6be75f4d92","ts":1796318315.3312414,"status":"completed","final_answer":"42","error":null,"steps":2,"tool_calls":1,"usage":{"prompt_tokens":931,"completion_tokens":27,"estimated":true},"duration_ms":26.167046999944432}');
INSERT INTO public.events VALUES ('ses_e58741a21deb443f', 1, 'run_661f8d6be75f4d92', 'run_started', 1796318315.3056855, '{"type":"run_started","run_id":"run_661f8d6be75f4d92","ts":1796318315.3056855,"question":"What is 6*7?","model":"fake-arith","protocol":"react","tools":[{"type":"function","function":{"name":"calculator","description":"Evaluate arithmetic exactly: + - * / // % ** (or ^), parentheses, pi, e, tau, sqrt, log (natural, or log(x, base)), log10, log2, exp, sin, cos, tan, asin, acos, atan (radians), abs, round, floor, ceil, min, max, hypot.","parameters":{"additionalProperties":false,"properties":{"expression":{"description":"e.g. \"(2 + 3) * 4\" or \"sqrt(2) * pi\".","type":"string"}},"required":["expression"],"type":"object"}}},{"type":"function","function":{"name":"get_current_time","description":"Get the current date, time and weekday, optionally in a given time zone.","parameters":{"additionalProperties":false,"properties":{"timezone":{"anyOf":[{"type":"string"},{"type":"null"}],"default":null,"description":"IANA time zone name such as \"Asia/Shanghai\" or \"Europe/Paris\"; omit for UTC."}},"type":"object","required":[]}}},{"type":"function","function":{"name":"date_calculator","description":"Calculate with calendar dates: add or subtract days, count days between dates, or find a weekday.","parameters":{"additionalProperties":false,"properties":{"operation":{"description":"\"add\" or \"subtract\" (needs days), \"difference\" (needs other_date), or \"weekday\".","enum":["add","subtract","difference","weekday"],"type":"string"},"date":{"description":"The start date in ISO format YYYY-MM-DD, or \"today\".","type":"string"},"days":{"anyOf":[{"type":"integer"},{"type":"null"}],"default":null,"description":"Number of days to add or subtract (for add/subtract)."},"other_date":{"anyOf":[{"type":"string"},{"type":"null"}],"default":null,"description":"The second date YYYY-MM-DD (for difference): result is other_date minus date."}},"required":["operation","date"],"type":"object"}}}],"settings":{"max_steps":10,"time_limit":300.0,"tool_timeout":30.0,"max_observation_chars":2000,"temperature":0.0,"max_tokens":4096,"max_format_retries":2,"keep_steps":6,"memory_budget_tokens":3000,"delta_interval":0.03,"max_tools":null,"pinned_tools":[],"require_approval":true,"tool_approval":{},"repeat_policy":"redirect"}}');
INSERT INTO public.events VALUES ('ses_e58741a21deb443f', 2, 'run_661f8d6be75f4d92', 'step_started', 1796318315.315822, '{"type":"step_started","run_id":"run_661f8d6be75f4d92","ts":1796318315.315822,"step":1,"offered_tools":["calculator","get_current_time","date_calculator"]}');
INSERT INTO public.events VALUES ('ses_e58741a21deb443f', 3, 'run_661f8d6be75f4d92', 'model_finished', 1796318315.3183246, '{"type":"model_finished","run_id":"run_661f8d6be75f4d92","ts":1796318315.3183246,"step":1,"model":"fake-arith","text":"Thought: multiply\nAction: calculator\nAction Input: {\"expression\": \"6*7\"}","reasoning":"","thought":"multiply","tool_calls":[{"id":"call_1","name":"calculator","arguments":"{\"expression\": \"6*7\"}"}],"final_answer":null,"format_error":null,"error":null,"usage":{"prompt_tokens":451,"completion_tokens":18,"estimated":true},"latency_ms":0.34131999996134255,"ttft_ms":0.22110500003691413,"finish_reason":"stop","messages":[{"role":"system","content":"You are Sparrow: you solve tasks step by step with tools.\n\nYou have these tools:\n- calculator(expression: string): Evaluate arithmetic exactly: + - * / // % ** (or ^), parentheses, pi, e, tau, sqrt, log (natural, or log(x, base)), log10, log2, exp, sin, cos, tan, asin, acos, atan (radians), abs, round, floor, ceil, min, max, hypot.\n  expression: e.g. \"(2 + 3) * 4\" or \"sqrt(2) * pi\".\n- get_current_time(timezone?: string|null): Get the current date, time and weekday, optionally in a given time zone.\n  timezone: IANA time zone name such as \"Asia/Shanghai\" or \"Europe/Paris\"; omit for UTC.\n- date_calculator(operation: \"add\"|\"subtract\"|\"difference\"|\"weekday\", date: string, days?: integer|null, other_date?: string|null): Calculate with calendar dates: add or subtract days, count days between dates, or find a weekday.\n  operation: \"add\" or \"subtract\" (needs days), \"difference\" (needs other_date), or \"weekday\".\n  date: The start date in ISO format YYYY-MM-DD, or \"today\".\n  days: Number of days to add or subtract (for add/subtract).\n  other_date: The second date YYYY-MM-DD (for difference): result is other_date minus date.\n\nReply in one of these two forms, nothing else.\nThought: <your reasoning>\nAction: <a tool name>\nAction Input: <the arguments as a JSON object>\nor\nThought: <your reasoning>\nFinal Answer: <the answer>\n\nRules: one Action per reply; never write \"Observation:\" (the system does, with the tool''s result). Use a tool for math, dates, the time and facts you are unsure of. If a tool keeps failing, answer with what you have and say what is missing. Answer in the question''s language.\n\nExample:\nThought: I need 0.17 * 2340.\nAction: calculator\nAction Input: {\"expression\": \"0.17 * 2340\"}\nObservation: 397.8\nThought: Done.\nFinal Answer: 397.8"},{"role":"user","content":"What is 6*7?"}],"messages_kept":0}');
INSERT INTO public.events VALUES ('ses_e58741a21deb443f', 4, 'run_661f8d6be75f4d92', 'tool_started', 1796318315.3241343, '{"type":"tool_started","run_id":"run_661f8d6be75f4d92","ts":1796318315.3241343,"step":1,"call_id":"call_1","tool":"calculator","arguments":{"expression":"6*7"}}');
INSERT INTO public.events VALUES ('ses_e58741a21deb443f', 5, 'run_661f8d6be75f4d92', 'tool_finished', 1796318315.3257918, '{"type":"tool_finished","run_id":"run_661f8d6be75f4d92","ts":1796318315.3257918,"step":1,"call_id":"call_1","tool":"calculator","output":"42","details":null,"error":null,"duration_ms":0.07963899997776025,"truncated":false}');
INSERT INTO public.events VALUES ('ses_e58741a21deb443f', 6, 'run_661f8d6be75f4d92', 'step_started', 1796318315.3271923, '{"type":"step_started","run_id":"run_661f8d6be75f4d92","ts":1796318315.3271923,"step":2,"offered_tools":["calculator","get_current_time","date_calculator"]}');
INSERT INTO public.events VALUES ('ses_e58741a21deb443f', 7, 'run_661f8d6be75f4d92', 'model_finished', 1796318315.3287578, '{"type":"model_finished","run_id":"run_661f8d6be75f4d92","ts":1796318315.3287578,"step":2,"model":"fake-arith","text":"Thought: I have it.\nFinal Answer: 42","reasoning":"","thought":"I have it.","tool_calls":[],"final_answer":"42","format_error":null,"error":null,"usage":{"prompt_tokens":480,"completion_tokens":9,"estimated":true},"latency_ms":0.12276999996174709,"ttft_ms":0.04083700002865953,"finish_reason":"stop","messages":[{"role":"assistant","content":"Thought: multiply\nAction: calculator\nAction Input: {\"expression\": \"6*7\"}"},{"role":"user","content":"Observation: 42"}],"messages_kept":2}');
INSERT INTO public.events VALUES ('ses_e58741a21deb443f', 8, 'run_661f8d6be75f4d92', 'final_answer', 1796318315.3300576, '{"type":"final_answer","run_id":"run_661f8d6be75f4d92","ts":1796318315.3300576,"step":2,"text":"42"}');
INSERT INTO public.events VALUES ('ses_e58741a21deb443f', 9, 'run_661f8d6be75f4d92', 'run_finished', 1796318315.3312414, '{"type":"run_finished","run_id":"run_661f8d6be75f4d92","ts":1796318315.3312414,"status":"completed","final_answer":"42","error":null,"steps":2,"tool_calls":1,"usage":{"prompt_tokens":931,"completion_tokens":27,"estimated":true},"duration_ms":26.167046999944432}');
INSERT INTO public.events VALUES ('ses_b1e1d6e2b2964865', 4, 'run_512363cd2e9b4493', 'tool_started', 1796318316.565129, '{"type":"tool_started","run_id":"run_512363cd2e9b4493","ts":1796318316.565129,"step":1,"call_id":"call_1","tool":"calculator","arguments":{"expression":"2 + 2"}}');
INSERT INTO public.events VALUES ('ses_b1e1d6e2b2964865', 5, 'run_512363cd2e9b4493', 'tool_finished', 1796318316.6155462, '{"type":"tool_finished","run_id":"run_512363cd2e9b4493","ts":1796318316.6155462,"step":1,"call_id":"call_1","tool":"calculator","output":"4","details":null,"error":null,"duration_ms":0.08650199993098795,"truncated":false}');
INSERT INTO public.events VALUES ('ses_b1e1d6e2b2964865', 6, 'run_512363cd2e9b4493', 'step_started', 1796318316.6156287, '{"type":"step_started","run_id":"run_512363cd2e9b4493","ts":1796318316.6156287,"step":2,"offered_tools":["calculator","get_current_time","date_calculator","web_search","get_weather"]}');
INSERT INTO public.events VALUES ('ses_e58741a21deb443f', 10, 'run_eb6d2e45f6a04fec', 'run_started', 1796318315.3592272, '{"type":"run_started","run_id":"run_eb6d2e45f6a04fec","ts":1796318315.3592272,"question":"Add 8 to that","model":"fake-arith","protocol":"react","tools":[{"type":"function","function":{"name":"calculator","description":"Evaluate arithmetic exactly: + - * / // % ** (or ^), parentheses, pi, e, tau, sqrt, log (natural, or log(x, base)), log10, log2, exp, sin, cos, tan, asin, acos, atan (radians), abs, round, floor, ceil, min, max, hypot.","parameters":{"additionalProperties":false,"properties":{"expression":{"description":"e.g. \"(2 + 3) * 4\" or \"sqrt(2) * pi\".","type":"string"}},"required":["expression"],"type":"object"}}},{"type":"function","function":{"name":"get_current_time","description":"Get the current date, time and weekday, optionally in a given time zone.","parameters":{"additionalProperties":false,"properties":{"timezone":{"anyOf":[{"type":"string"},{"type":"null"}],"default":null,"description":"IANA time zone name such as \"Asia/Shanghai\" or \"Europe/Paris\"; omit for UTC."}},"type":"object","required":[]}}},{"type":"function","function":{"name":"date_calculator","description":"Calculate with calendar dates: add or subtract days, count days between dates, or find a weekday.","parameters":{"additionalProperties":false,"properties":{"operation":{"description":"\"add\" or \"subtract\" (needs days), \"difference\" (needs other_date), or \"weekday\".","enum":["add","subtract","difference","weekday"],"type":"string"},"date":{"description":"The start date in ISO format YYYY-MM-DD, or \"today\".","type":"string"},"days":{"anyOf":[{"type":"integer"},{"type":"null"}],"default":null,"description":"Number of days to add or subtract (for add/subtract)."},"other_date":{"anyOf":[{"type":"string"},{"type":"null"}],"default":null,"description":"The second date YYYY-MM-DD (for difference): result is other_date minus date."}},"required":["operation","date"],"type":"object"}}}],"settings":{"max_steps":10,"time_limit":300.0,"tool_timeout":30.0,"max_observation_chars":2000,"temperature":0.0,"max_tokens":4096,"max_format_retries":2,"keep_steps":6,"memory_budget_tokens":3000,"delta_interval":0.03,"max_tools":null,"pinned_tools":[],"require_approval":true,"tool_approval":{},"repeat_policy":"redirect"}}');
INSERT INTO public.events VALUES ('ses_e58741a21deb443f', 11, 'run_eb6d2e45f6a04fec', 'step_started', 1796318315.3631513, '{"type":"step_started","run_id":"run_eb6d2e45f6a04fec","ts":1796318315.3631513,"step":1,"offered_tools":["calculator","get_current_time","date_calculator"]}');
INSERT INTO public.events VALUES ('ses_e58741a21deb443f', 12, 'run_eb6d2e45f6a04fec', 'model_finished', 1796318315.3651507, '{"type":"model_finished","run_id":"run_eb6d2e45f6a04fec","ts":1796318315.3651507,"step":1,"model":"fake-arith","text":"Thought: add\nAction: calculator\nAction Input: {\"expression\": \"42+8\"}","reasoning":"","thought":"add","tool_calls":[{"id":"call_1","name":"calculator","arguments":"{\"expression\": \"42+8\"}"}],"final_answer":null,"format_error":null,"error":null,"usage":{"prompt_tokens":466,"completion_tokens":17,"estimated":true},"latency_ms":0.29080500007694354,"ttft_ms":0.18707100002757215,"finish_reason":"stop","messages":[{"role":"system","content":"You are Sparrow: you solve tasks step by step with tools.\n\nYou have these tools:\n- calculator(expression: string): Evaluate arithmetic exactly: + - * / // % ** (or ^), parentheses, pi, e, tau, sqrt, log (natural, or log(x, base)), log10, log2, exp, sin, cos, tan, asin, acos, atan (radians), abs, round, floor, ceil, min, max, hypot.\n  expression: e.g. \"(2 + 3) * 4\" or \"sqrt(2) * pi\".\n- get_current_time(timezone?: string|null): Get the current date, time and weekday, optionally in a given time zone.\n  timezone: IANA time zone name such as \"Asia/Shanghai\" or \"Europe/Paris\"; omit for UTC.\n- date_calculator(operation: \"add\"|\"subtract\"|\"difference\"|\"weekday\", date: string, days?: integer|null, other_date?: string|null): Calculate with calendar dates: add or subtract days, count days between dates, or find a weekday.\n  operation: \"add\" or \"subtract\" (needs days), \"difference\" (needs other_date), or \"weekday\".\n  date: The start date in ISO format YYYY-MM-DD, or \"today\".\n  days: Number of days to add or subtract (for add/subtract).\n  other_date: The second date YYYY-MM-DD (for difference): result is other_date minus date.\n\nReply in one of these two forms, nothing else.\nThought: <your reasoning>\nAction: <a tool name>\nAction Input: <the arguments as a JSON object>\nor\nThought: <your reasoning>\nFinal Answer: <the answer>\n\nRules: one Action per reply; never write \"Observation:\" (the system does, with the tool''s result). Use a tool for math, dates, the time and facts you are unsure of. If a tool keeps failing, answer with what you have and say what is missing. Answer in the question''s language.\n\nExample:\nThought: I need 0.17 * 2340.\nAction: calculator\nAction Input: {\"expression\": \"0.17 * 2340\"}\nObservation: 397.8\nThought: Done.\nFinal Answer: 397.8"},{"role":"user","content":"What is 6*7?"},{"role":"assistant","content":"Final Answer: 42"},{"role":"user","content":"Add 8 to that"}],"messages_kept":0}');
INSERT INTO public.events VALUES ('ses_e58741a21deb443f', 13, 'run_eb6d2e45f6a04fec', 'tool_started', 1796318315.3680167, '{"type":"tool_started","run_id":"run_eb6d2e45f6a04fec","ts":1796318315.3680167,"step":1,"call_id":"call_1","tool":"calculator","arguments":{"expression":"42+8"}}');
INSERT INTO public.events VALUES ('ses_e58741a21deb443f', 14, 'run_eb6d2e45f6a04fec', 'tool_finished', 1796318315.3741417, '{"type":"tool_finished","run_id":"run_eb6d2e45f6a04fec","ts":1796318315.3741417,"step":1,"call_id":"call_1","tool":"calculator","output":"50","details":null,"error":null,"duration_ms":0.09507799995844834,"truncated":false}');
INSERT INTO public.events VALUES ('ses_e58741a21deb443f', 15, 'run_eb6d2e45f6a04fec', 'step_started', 1796318315.3825474, '{"type":"step_started","run_id":"run_eb6d2e45f6a04fec","ts":1796318315.3825474,"step":2,"offered_tools":["calculator","get_current_time","date_calculator"]}');
INSERT INTO public.events VALUES ('ses_e58741a21deb443f', 16, 'run_eb6d2e45f6a04fec', 'model_finished', 1796318315.3876379, '{"type":"model_finished","run_id":"run_eb6d2e45f6a04fec","ts":1796318315.3876379,"step":2,"model":"fake-arith","text":"Thought: I have it.\nFinal Answer: 50","reasoning":"","thought":"I have it.","tool_calls":[],"final_answer":"50","format_error":null,"error":null,"usage":{"prompt_tokens":494,"completion_tokens":9,"estimated":true},"latency_ms":0.17984700014039845,"ttft_ms":0.06518200007121777,"finish_reason":"stop","messages":[{"role":"assistant","content":"Thought: add\nAction: calculator\nAction Input: {\"expression\": \"42+8\"}"},{"role":"user","content":"Observation: 50"}],"messages_kept":4}');
INSERT INTO public.events VALUES ('ses_e58741a21deb443f', 17, 'run_eb6d2e45f6a04fec', 'final_answer', 1796318315.3898687, '{"type":"final_answer","run_id":"run_eb6d2e45f6a04fec","ts":1796318315.3898687,"step":2,"text":"50"}');
INSERT INTO public.events VALUES ('ses_e58741a21deb443f', 18, 'run_eb6d2e45f6a04fec', 'run_finished', 1796318315.3930643, '{"type":"run_finished","run_id":"run_eb6d2e45f6a04fec","ts":1796318315.3930643,"status":"completed","final_answer":"50","error":null,"steps":2,"tool_calls":1,"usage":{"prompt_tokens":960,"completion_tokens":26,"estimated":true},"duration_ms":33.902381000075366}');
INSERT INTO public.events VALUES ('ses_728a38f12a5b487b', 1, 'run_half', 'run_started', 1796318315.7465534, '{"type":"run_started","run_id":"run_half","ts":1796318315.7465534,"question":"What is 7*8?","model":"fake-arith","protocol":"react","tools":[],"settings":{},"attachments":[{"name":"note.txt","mime":"text/plain","text":"a note"}],"endpoint":"http://x/v1"}');
INSERT INTO public.events VALUES ('ses_728a38f12a5b487b', 2, 'run_half', 'step_started', 1796318315.7465603, '{"type":"step_started","run_id":"run_half","ts":1796318315.7465603,"step":1,"offered_tools":[]}');
INSERT INTO public.events VALUES ('ses_728a38f12a5b487b', 3, 'run_half', 'model_finished', 1796318315.7465727, '{"type":"model_finished","run_id":"run_half","ts":1796318315.7465727,"step":1,"model":"","text":"t","reasoning":"","thought":"","tool_calls":[],"final_answer":null,"format_error":null,"error":null,"usage":{"prompt_tokens":5,"completion_tokens":2,"estimated":false,"cached_tokens":3,"reasoning_tokens":1},"latency_ms":0.0,"ttft_ms":null,"finish_reason":null,"retried_after":["503"],"messages":[],"messages_kept":0}');
INSERT INTO public.events VALUES ('ses_728a38f12a5b487b', 4, 'run_half', 'tool_finished', 1796318315.7465832, '{"type":"tool_finished","run_id":"run_half","ts":1796318315.7465832,"step":1,"call_id":"c1","tool":"fetch","output":"page","details":null,"error":null,"duration_ms":0.0,"truncated":false,"outside":"http://x","reused_from":{"session":"s","run":"r","step":1,"call_id":"c0"}}');
INSERT INTO public.events VALUES ('ses_b1e1d6e2b2964865', 7, 'run_512363cd2e9b4493', 'model_finished', 1796318316.6435144, '{"type":"model_finished","run_id":"run_512363cd2e9b4493","ts":1796318316.6435144,"step":2,"model":"rules","text":"Thought: Done.\nFinal Answer: The result is 4.","reasoning":"","thought":"Done.","tool_calls":[],"final_answer":"The result is 4.","format_error":null,"error":null,"usage":{"prompt_tokens":640,"completion_tokens":11,"estimated":true},"latency_ms":0.2054459999953906,"ttft_ms":0.12711900001249887,"finish_reason":"stop","messages":[{"role":"assistant","content":"Thought: I will use the calculator.\nAction: calculator\nAction Input: {\"expression\": \"2 + 2\"}"},{"role":"user","content":"Observation: 4"}],"messages_kept":2}');
INSERT INTO public.events VALUES ('ses_b1e1d6e2b2964865', 8, 'run_512363cd2e9b4493', 'final_answer', 1796318316.643562, '{"type":"final_answer","run_id":"run_512363cd2e9b4493","ts":1796318316.643562,"step":2,"text":"The result is 4."}');
INSERT INTO public.events VALUES ('ses_9c690671a16c412a', 1, 'run_5248b1a3443845ed', 'run_started', 1796318315.9005845, '{"type":"run_started","run_id":"run_5248b1a3443845ed","ts":1796318315.9005845,"question":"What is 2*3?","model":"fake-arith","protocol":"react","tools":[{"type":"function","function":{"name":"calculator","description":"Evaluate arithmetic exactly: + - * / // % ** (or ^), parentheses, pi, e, tau, sqrt, log (natural, or log(x, base)), log10, log2, exp, sin, cos, tan, asin, acos, atan (radians), abs, round, floor, ceil, min, max, hypot.","parameters":{"additionalProperties":false,"properties":{"expression":{"description":"e.g. \"(2 + 3) * 4\" or \"sqrt(2) * pi\".","type":"string"}},"required":["expression"],"type":"object"}}},{"type":"function","function":{"name":"get_current_time","description":"Get the current date, time and weekday, optionally in a given time zone.","parameters":{"additionalProperties":false,"properties":{"timezone":{"anyOf":[{"type":"string"},{"type":"null"}],"default":null,"description":"IANA time zone name such as \"Asia/Shanghai\" or \"Europe/Paris\"; omit for UTC."}},"type":"object","required":[]}}},{"type":"function","function":{"name":"date_calculator","description":"Calculate with calendar dates: add or subtract days, count days between dates, or find a weekday.","parameters":{"additionalProperties":false,"properties":{"operation":{"description":"\"add\" or \"subtract\" (needs days), \"difference\" (needs other_date), or \"weekday\".","enum":["add","subtract","difference","weekday"],"type":"string"},"date":{"description":"The start date in ISO format YYYY-MM-DD, or \"today\".","type":"string"},"days":{"anyOf":[{"type":"integer"},{"type":"null"}],"default":null,"description":"Number of days to add or subtract (for add/subtract)."},"other_date":{"anyOf":[{"type":"string"},{"type":"null"}],"default":null,"description":"The second date YYYY-MM-DD (for difference): result is other_date minus date."}},"required":["operation","date"],"type":"object"}}}],"settings":{"max_steps":10,"time_limit":300.0,"tool_timeout":30.0,"max_observation_chars":2000,"temperature":0.0,"max_tokens":4096,"max_format_retries":2,"keep_steps":6,"memory_budget_tokens":3000,"delta_interval":0.03,"max_tools":null,"pinned_tools":[],"require_approval":true,"tool_approval":{},"repeat_policy":"redirect"}}');
INSERT INTO public.events VALUES ('ses_9c690671a16c412a', 2, 'run_5248b1a3443845ed', 'step_started', 1796318315.950528, '{"type":"step_started","run_id":"run_5248b1a3443845ed","ts":1796318315.950528,"step":1,"offered_tools":["calculator","get_current_time","date_calculator"]}');
INSERT INTO public.events VALUES ('ses_9c690671a16c412a', 3, 'run_5248b1a3443845ed', 'model_finished', 1796318315.9701507, '{"type":"model_finished","run_id":"run_5248b1a3443845ed","ts":1796318315.9701507,"step":1,"model":"fake-arith","text":"Thought: multiply\nAction: calculator\nAction Input: {\"expression\": \"2*3\"}","reasoning":"","thought":"multiply","tool_calls":[{"id":"call_1","name":"calculator","arguments":"{\"expression\": \"2*3\"}"}],"final_answer":null,"format_error":null,"error":null,"usage":{"prompt_tokens":481,"completion_tokens":18,"estimated":true},"latency_ms":0.17444799993882043,"ttft_ms":0.07840699993266753,"finish_reason":"stop","messages":[{"role":"system","content":"You are Sparrow: you solve tasks step by step with tools.\n\nYou have these tools:\n- calculator(expression: string): Evaluate arithmetic exactly: + - * / // % ** (or ^), parentheses, pi, e, tau, sqrt, log (natural, or log(x, base)), log10, log2, exp, sin, cos, tan, asin, acos, atan (radians), abs, round, floor, ceil, min, max, hypot.\n  expression: e.g. \"(2 + 3) * 4\" or \"sqrt(2) * pi\".\n- get_current_time(timezone?: string|null): Get the current date, time and weekday, optionally in a given time zone.\n  timezone: IANA time zone name such as \"Asia/Shanghai\" or \"Europe/Paris\"; omit for UTC.\n- date_calculator(operation: \"add\"|\"subtract\"|\"difference\"|\"weekday\", date: string, days?: integer|null, other_date?: string|null): Calculate with calendar dates: add or subtract days, count days between dates, or find a weekday.\n  operation: \"add\" or \"subtract\" (needs days), \"difference\" (needs other_date), or \"weekday\".\n  date: The start date in ISO format YYYY-MM-DD, or \"today\".\n  days: Number of days to add or subtract (for add/subtract).\n  other_date: The second date YYYY-MM-DD (for difference): result is other_date minus date.\n\nReply in one of these two forms, nothing else.\nThought: <your reasoning>\nAction: <a tool name>\nAction Input: <the arguments as a JSON object>\nor\nThought: <your reasoning>\nFinal Answer: <the answer>\n\nRules: one Action per reply; never write \"Observation:\" (the system does, with the tool''s result). Use a tool for math, dates, the time and facts you are unsure of. If a tool keeps failing, answer with what you have and say what is missing. Answer in the question''s language.\n\nExample:\nThought: I need 0.17 * 2340.\nAction: calculator\nAction Input: {\"expression\": \"0.17 * 2340\"}\nObservation: 397.8\nThought: Done.\nFinal Answer: 397.8"},{"role":"user","content":"What is 6*7?"},{"role":"assistant","content":"Final Answer: 42"},{"role":"user","content":"Add 8 to that"},{"role":"assistant","content":"Final Answer: 50"},{"role":"user","content":"What is 2*3?"}],"messages_kept":0}');
INSERT INTO public.events VALUES ('ses_9c690671a16c412a', 4, 'run_5248b1a3443845ed', 'tool_started', 1796318315.9719534, '{"type":"tool_started","run_id":"run_5248b1a3443845ed","ts":1796318315.9719534,"step":1,"call_id":"call_1","tool":"calculator","arguments":{"expression":"2*3"}}');
INSERT INTO public.events VALUES ('ses_9c690671a16c412a', 5, 'run_5248b1a3443845ed', 'tool_finished', 1796318316.0228102, '{"type":"tool_finished","run_id":"run_5248b1a3443845ed","ts":1796318316.0228102,"step":1,"call_id":"call_1","tool":"calculator","output":"6","details":null,"error":null,"duration_ms":0.10911499998655927,"truncated":false}');
INSERT INTO public.events VALUES ('ses_9c690671a16c412a', 6, 'run_5248b1a3443845ed', 'step_started', 1796318316.0284102, '{"type":"step_started","run_id":"run_5248b1a3443845ed","ts":1796318316.0284102,"step":2,"offered_tools":["calculator","get_current_time","date_calculator"]}');
INSERT INTO public.events VALUES ('ses_9c690671a16c412a', 7, 'run_5248b1a3443845ed', 'model_finished', 1796318316.0308263, '{"type":"model_finished","run_id":"run_5248b1a3443845ed","ts":1796318316.0308263,"step":2,"model":"fake-arith","text":"Thought: I have it.\nFinal Answer: 6","reasoning":"","thought":"I have it.","tool_calls":[],"final_answer":"6","format_error":null,"error":null,"usage":{"prompt_tokens":510,"completion_tokens":8,"estimated":true},"latency_ms":0.13026500005253183,"ttft_ms":0.04635700008748245,"finish_reason":"stop","messages":[{"role":"assistant","content":"Thought: multiply\nAction: calculator\nAction Input: {\"expression\": \"2*3\"}"},{"role":"user","content":"Observation: 6"}],"messages_kept":6}');
INSERT INTO public.events VALUES ('ses_9c690671a16c412a', 8, 'run_5248b1a3443845ed', 'final_answer', 1796318316.0585055, '{"type":"final_answer","run_id":"run_5248b1a3443845ed","ts":1796318316.0585055,"step":2,"text":"6"}');
INSERT INTO public.events VALUES ('ses_9c690671a16c412a', 9, 'run_5248b1a3443845ed', 'run_finished', 1796318316.0715394, '{"type":"run_finished","run_id":"run_5248b1a3443845ed","ts":1796318316.0715394,"status":"completed","final_answer":"6","error":null,"steps":2,"tool_calls":1,"usage":{"prompt_tokens":991,"completion_tokens":26,"estimated":true},"duration_ms":171.20811799998137}');
INSERT INTO public.events VALUES ('ses_b1e1d6e2b2964865', 1, 'run_512363cd2e9b4493', 'run_started', 1796318316.5520759, '{"type":"run_started","run_id":"run_512363cd2e9b4493","ts":1796318316.5520759,"question":"What is 2 + 2?","model":"rules","protocol":"react","tools":[{"type":"function","function":{"name":"calculator","description":"Evaluate arithmetic exactly: + - * / // % ** (or ^), parentheses, pi, e, tau, sqrt, log (natural, or log(x, base)), log10, log2, exp, sin, cos, tan, asin, acos, atan (radians), abs, round, floor, ceil, min, max, hypot.","parameters":{"additionalProperties":false,"properties":{"expression":{"description":"e.g. \"(2 + 3) * 4\" or \"sqrt(2) * pi\".","type":"string"}},"required":["expression"],"type":"object"}}},{"type":"function","function":{"name":"get_current_time","description":"Get the current date, time and weekday, optionally in a given time zone.","parameters":{"additionalProperties":false,"properties":{"timezone":{"anyOf":[{"type":"string"},{"type":"null"}],"default":null,"description":"IANA time zone name such as \"Asia/Shanghai\" or \"Europe/Paris\"; omit for UTC."}},"type":"object","required":[]}}},{"type":"function","function":{"name":"date_calculator","description":"Calculate with calendar dates: add or subtract days, count days between dates, or find a weekday.","parameters":{"additionalProperties":false,"properties":{"operation":{"description":"\"add\" or \"subtract\" (needs days), \"difference\" (needs other_date), or \"weekday\".","enum":["add","subtract","difference","weekday"],"type":"string"},"date":{"description":"The start date in ISO format YYYY-MM-DD, or \"today\".","type":"string"},"days":{"anyOf":[{"type":"integer"},{"type":"null"}],"default":null,"description":"Number of days to add or subtract (for add/subtract)."},"other_date":{"anyOf":[{"type":"string"},{"type":"null"}],"default":null,"description":"The second date YYYY-MM-DD (for difference): result is other_date minus date."}},"required":["operation","date"],"type":"object"}}},{"type":"function","function":{"name":"web_search","description":"Search the web; returns the top results as title, URL and snippet.","parameters":{"additionalProperties":false,"properties":{"query":{"description":"What to search for, in plain words, e.g. \"Open-Meteo forecast API parameters\".","type":"string"},"max_results":{"default":5,"description":"How many results to return, from 1 to 10.","type":"integer"}},"required":["query"],"type":"object"}}},{"type":"function","function":{"name":"get_weather","description":"Get the weather of one day for a city: conditions, min/max temperature (°C), precipitation (mm), wind.","parameters":{"additionalProperties":false,"properties":{"city":{"description":"City name, optionally with country or region to disambiguate, e.g. \"Paris, France\".","type":"string"},"date":{"anyOf":[{"type":"string"},{"type":"null"}],"default":null,"description":"The day as YYYY-MM-DD, \"today\", \"tomorrow\" or \"yesterday\" (the city''s local date); default today."}},"required":["city"],"type":"object"}}}],"settings":{"max_steps":10,"time_limit":300.0,"tool_timeout":30.0,"max_observation_chars":2000,"temperature":0.0,"max_tokens":4096,"max_format_retries":2,"keep_steps":6,"memory_budget_tokens":3000,"delta_interval":0.03,"max_tools":null,"pinned_tools":[],"require_approval":false,"tool_approval":{},"repeat_policy":"redirect"}}');
INSERT INTO public.events VALUES ('ses_b1e1d6e2b2964865', 2, 'run_512363cd2e9b4493', 'step_started', 1796318316.5520964, '{"type":"step_started","run_id":"run_512363cd2e9b4493","ts":1796318316.5520964,"step":1,"offered_tools":["calculator","get_current_time","date_calculator","web_search","get_weather"]}');
INSERT INTO public.events VALUES ('ses_b1e1d6e2b2964865', 3, 'run_512363cd2e9b4493', 'model_finished', 1796318316.565051, '{"type":"model_finished","run_id":"run_512363cd2e9b4493","ts":1796318316.565051,"step":1,"model":"rules","text":"Thought: I will use the calculator.\nAction: calculator\nAction Input: {\"expression\": \"2 + 2\"}","reasoning":"","thought":"I will use the calculator.","tool_calls":[{"id":"call_1","name":"calculator","arguments":"{\"expression\": \"2 + 2\"}"}],"final_answer":null,"format_error":null,"error":null,"usage":{"prompt_tokens":606,"completion_tokens":23,"estimated":true},"latency_ms":0.4050200000165205,"ttft_ms":0.30807699999968463,"finish_reason":"stop","messages":[{"role":"system","content":"You are Sparrow: you solve tasks step by step with tools.\n\nYou have these tools:\n- calculator(expression: string): Evaluate arithmetic exactly: + - * / // % ** (or ^), parentheses, pi, e, tau, sqrt, log (natural, or log(x, base)), log10, log2, exp, sin, cos, tan, asin, acos, atan (radians), abs, round, floor, ceil, min, max, hypot.\n  expression: e.g. \"(2 + 3) * 4\" or \"sqrt(2) * pi\".\n- get_current_time(timezone?: string|null): Get the current date, time and weekday, optionally in a given time zone.\n  timezone: IANA time zone name such as \"Asia/Shanghai\" or \"Europe/Paris\"; omit for UTC.\n- date_calculator(operation: \"add\"|\"subtract\"|\"difference\"|\"weekday\", date: string, days?: integer|null, other_date?: string|null): Calculate with calendar dates: add or subtract days, count days between dates, or find a weekday.\n  operation: \"add\" or \"subtract\" (needs days), \"difference\" (needs other_date), or \"weekday\".\n  date: The start date in ISO format YYYY-MM-DD, or \"today\".\n  days: Number of days to add or subtract (for add/subtract).\n  other_date: The second date YYYY-MM-DD (for difference): result is other_date minus date.\n- web_search(query: string, max_results?: integer = 5): Search the web; returns the top results as title, URL and snippet.\n  query: What to search for, in plain words, e.g. \"Open-Meteo forecast API parameters\".\n  max_results: How many results to return, from 1 to 10.\n- get_weather(city: string, date?: string|null): Get the weather of one day for a city: conditions, min/max temperature (°C), precipitation (mm), wind.\n  city: City name, optionally with country or region to disambiguate, e.g. \"Paris, France\".\n  date: The day as YYYY-MM-DD, \"today\", \"tomorrow\" or \"yesterday\" (the city''s local date); default today.\n\nReply in one of these two forms, nothing else.\nThought: <your reasoning>\nAction: <a tool name>\nAction Input: <the arguments as a JSON object>\nor\nThought: <your reasoning>\nFinal Answer: <the answer>\n\nRules: one Action per reply; never write \"Observation:\" (the system does, with the tool''s result). Use a tool for math, dates, the time and facts you are unsure of. If a tool keeps failing, answer with what you have and say what is missing. Answer in the question''s language.\n\nExample:\nThought: I need 0.17 * 2340.\nAction: calculator\nAction Input: {\"expression\": \"0.17 * 2340\"}\nObservation: 397.8\nThought: Done.\nFinal Answer: 397.8"},{"role":"user","content":"What is 2 + 2?"}],"messages_kept":0}');
INSERT INTO public.events VALUES ('ses_75322e03024f4976', 1, 'run_0394a890581342a6', 'run_started', 1796318316.6124597, '{"type":"run_started","run_id":"run_0394a890581342a6","ts":1796318316.6124597,"question":"What is 1 + 1?","model":"rules","protocol":"react","tools":[{"type":"function","function":{"name":"calculator","description":"Evaluate arithmetic exactly: + - * / // % ** (or ^), parentheses, pi, e, tau, sqrt, log (natural, or log(x, base)), log10, log2, exp, sin, cos, tan, asin, acos, atan (radians), abs, round, floor, ceil, min, max, hypot.","parameters":{"additionalProperties":false,"properties":{"expression":{"description":"e.g. \"(2 + 3) * 4\" or \"sqrt(2) * pi\".","type":"string"}},"required":["expression"],"type":"object"}}},{"type":"function","function":{"name":"get_current_time","description":"Get the current date, time and weekday, optionally in a given time zone.","parameters":{"additionalProperties":false,"properties":{"timezone":{"anyOf":[{"type":"string"},{"type":"null"}],"default":null,"description":"IANA time zone name such as \"Asia/Shanghai\" or \"Europe/Paris\"; omit for UTC."}},"type":"object","required":[]}}},{"type":"function","function":{"name":"date_calculator","description":"Calculate with calendar dates: add or subtract days, count days between dates, or find a weekday.","parameters":{"additionalProperties":false,"properties":{"operation":{"description":"\"add\" or \"subtract\" (needs days), \"difference\" (needs other_date), or \"weekday\".","enum":["add","subtract","difference","weekday"],"type":"string"},"date":{"description":"The start date in ISO format YYYY-MM-DD, or \"today\".","type":"string"},"days":{"anyOf":[{"type":"integer"},{"type":"null"}],"default":null,"description":"Number of days to add or subtract (for add/subtract)."},"other_date":{"anyOf":[{"type":"string"},{"type":"null"}],"default":null,"description":"The second date YYYY-MM-DD (for difference): result is other_date minus date."}},"required":["operation","date"],"type":"object"}}},{"type":"function","function":{"name":"web_search","description":"Search the web; returns the top results as title, URL and snippet.","parameters":{"additionalProperties":false,"properties":{"query":{"description":"What to search for, in plain words, e.g. \"Open-Meteo forecast API parameters\".","type":"string"},"max_results":{"default":5,"description":"How many results to return, from 1 to 10.","type":"integer"}},"required":["query"],"type":"object"}}},{"type":"function","function":{"name":"get_weather","description":"Get the weather of one day for a city: conditions, min/max temperature (°C), precipitation (mm), wind.","parameters":{"additionalProperties":false,"properties":{"city":{"description":"City name, optionally with country or region to disambiguate, e.g. \"Paris, France\".","type":"string"},"date":{"anyOf":[{"type":"string"},{"type":"null"}],"default":null,"description":"The day as YYYY-MM-DD, \"today\", \"tomorrow\" or \"yesterday\" (the city''s local date); default today."}},"required":["city"],"type":"object"}}}],"settings":{"max_steps":10,"time_limit":300.0,"tool_timeout":30.0,"max_observation_chars":2000,"temperature":0.0,"max_tokens":4096,"max_format_retries":2,"keep_steps":6,"memory_budget_tokens":3000,"delta_interval":0.03,"max_tools":null,"pinned_tools":[],"require_approval":false,"tool_approval":{},"repeat_policy":"redirect"}}');
INSERT INTO public.events VALUES ('ses_75322e03024f4976', 2, 'run_0394a890581342a6', 'step_started', 1796318316.6124854, '{"type":"step_started","run_id":"run_0394a890581342a6","ts":1796318316.6124854,"step":1,"offered_tools":["calculator","get_current_time","date_calculator","web_search","get_weather"]}');
INSERT INTO public.events VALUES ('ses_75322e03024f4976', 3, 'run_0394a890581342a6', 'model_finished', 1796318316.625855, '{"type":"model_finished","run_id":"run_0394a890581342a6","ts":1796318316.625855,"step":1,"model":"rules","text":"Thought: I will use the calculator.\nAction: calculator\nAction Input: {\"expression\": \"1 + 1\"}","reasoning":"","thought":"I will use the calculator.","tool_calls":[{"id":"call_1","name":"calculator","arguments":"{\"expression\": \"1 + 1\"}"}],"final_answer":null,"format_error":null,"error":null,"usage":{"prompt_tokens":606,"completion_tokens":23,"estimated":true},"latency_ms":0.19250100012868643,"ttft_ms":0.09789400007775839,"finish_reason":"stop","messages":[{"role":"system","content":"You are Sparrow: you solve tasks step by step with tools.\n\nYou have these tools:\n- calculator(expression: string): Evaluate arithmetic exactly: + - * / // % ** (or ^), parentheses, pi, e, tau, sqrt, log (natural, or log(x, base)), log10, log2, exp, sin, cos, tan, asin, acos, atan (radians), abs, round, floor, ceil, min, max, hypot.\n  expression: e.g. \"(2 + 3) * 4\" or \"sqrt(2) * pi\".\n- get_current_time(timezone?: string|null): Get the current date, time and weekday, optionally in a given time zone.\n  timezone: IANA time zone name such as \"Asia/Shanghai\" or \"Europe/Paris\"; omit for UTC.\n- date_calculator(operation: \"add\"|\"subtract\"|\"difference\"|\"weekday\", date: string, days?: integer|null, other_date?: string|null): Calculate with calendar dates: add or subtract days, count days between dates, or find a weekday.\n  operation: \"add\" or \"subtract\" (needs days), \"difference\" (needs other_date), or \"weekday\".\n  date: The start date in ISO format YYYY-MM-DD, or \"today\".\n  days: Number of days to add or subtract (for add/subtract).\n  other_date: The second date YYYY-MM-DD (for difference): result is other_date minus date.\n- web_search(query: string, max_results?: integer = 5): Search the web; returns the top results as title, URL and snippet.\n  query: What to search for, in plain words, e.g. \"Open-Meteo forecast API parameters\".\n  max_results: How many results to return, from 1 to 10.\n- get_weather(city: string, date?: string|null): Get the weather of one day for a city: conditions, min/max temperature (°C), precipitation (mm), wind.\n  city: City name, optionally with country or region to disambiguate, e.g. \"Paris, France\".\n  date: The day as YYYY-MM-DD, \"today\", \"tomorrow\" or \"yesterday\" (the city''s local date); default today.\n\nReply in one of these two forms, nothing else.\nThought: <your reasoning>\nAction: <a tool name>\nAction Input: <the arguments as a JSON object>\nor\nThought: <your reasoning>\nFinal Answer: <the answer>\n\nRules: one Action per reply; never write \"Observation:\" (the system does, with the tool''s result). Use a tool for math, dates, the time and facts you are unsure of. If a tool keeps failing, answer with what you have and say what is missing. Answer in the question''s language.\n\nExample:\nThought: I need 0.17 * 2340.\nAction: calculator\nAction Input: {\"expression\": \"0.17 * 2340\"}\nObservation: 397.8\nThought: Done.\nFinal Answer: 397.8"},{"role":"user","content":"What is 1 + 1?"}],"messages_kept":0}');
INSERT INTO public.events VALUES ('ses_75322e03024f4976', 4, 'run_0394a890581342a6', 'tool_started', 1796318316.6259272, '{"type":"tool_started","run_id":"run_0394a890581342a6","ts":1796318316.6259272,"step":1,"call_id":"call_1","tool":"calculator","arguments":{"expression":"1 + 1"}}');
INSERT INTO public.events VALUES ('ses_75322e03024f4976', 5, 'run_0394a890581342a6', 'tool_finished', 1796318316.6502118, '{"type":"tool_finished","run_id":"run_0394a890581342a6","ts":1796318316.6502118,"step":1,"call_id":"call_1","tool":"calculator","output":"2","details":null,"error":null,"duration_ms":0.06012300002566917,"truncated":false}');
INSERT INTO public.events VALUES ('ses_75322e03024f4976', 6, 'run_0394a890581342a6', 'step_started', 1796318316.6503088, '{"type":"step_started","run_id":"run_0394a890581342a6","ts":1796318316.6503088,"step":2,"offered_tools":["calculator","get_current_time","date_calculator","web_search","get_weather"]}');
INSERT INTO public.events VALUES ('ses_75322e03024f4976', 7, 'run_0394a890581342a6', 'model_finished', 1796318316.665246, '{"type":"model_finished","run_id":"run_0394a890581342a6","ts":1796318316.665246,"step":2,"model":"rules","text":"Thought: Done.\nFinal Answer: The result is 2.","reasoning":"","thought":"Done.","tool_calls":[],"final_answer":"The result is 2.","format_error":null,"error":null,"usage":{"prompt_tokens":640,"completion_tokens":11,"estimated":true},"latency_ms":0.16360699999040662,"ttft_ms":0.09315499994499987,"finish_reason":"stop","messages":[{"role":"assistant","content":"Thought: I will use the calculator.\nAction: calculator\nAction Input: {\"expression\": \"1 + 1\"}"},{"role":"user","content":"Observation: 2"}],"messages_kept":2}');
INSERT INTO public.events VALUES ('ses_75322e03024f4976', 8, 'run_0394a890581342a6', 'final_answer', 1796318316.665305, '{"type":"final_answer","run_id":"run_0394a890581342a6","ts":1796318316.665305,"step":2,"text":"The result is 2."}');
INSERT INTO public.events VALUES ('ses_75322e03024f4976', 9, 'run_0394a890581342a6', 'run_finished', 1796318316.6653106, '{"type":"run_finished","run_id":"run_0394a890581342a6","ts":1796318316.6653106,"status":"completed","final_answer":"The result is 2.","error":null,"steps":2,"tool_calls":1,"usage":{"prompt_tokens":1246,"completion_tokens":34,"estimated":true},"duration_ms":53.02022000000761}');


--
-- Data for Name: experiment_results; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.experiment_results VALUES ('exp_be4a3f5a29a24f9b', 0, 0, 0, 'ses_75322e03024f4976', 'run_0394a890581342a6', 'done', true, 1, '[{"name": "number", "passed": true, "value": 1.0, "reason": "the answer gives 2 (expected 2 \u00b1 1e-09)", "error": false, "judge_run": null}]', NULL, NULL, 'vm:20367', 1796318316.5705435, 1796318316.8526855);
INSERT INTO public.experiment_results VALUES ('exp_be4a3f5a29a24f9b', 1, 0, 0, 'ses_b1e1d6e2b2964865', 'run_512363cd2e9b4493', 'done', true, 1, '[{"name": "number", "passed": true, "value": 1.0, "reason": "the answer gives 4 (expected 4 \u00b1 1e-09)", "error": false, "judge_run": null}]', NULL, NULL, 'vm:20367', 1796318316.544752, 1796318316.8545768);


--
-- Data for Name: experiments; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.experiments VALUES ('exp_be4a3f5a29a24f9b', 'adds v1 #1', 'ds_e0d83810b0854d72', '[{"name": "react", "model": "rules", "base_url": null, "protocol": "react", "temperature": 0.0, "max_steps": 10, "time_limit": 300.0, "tools": null, "system_prompt": null, "api_key_env": "OPENAI_API_KEY"}]', 1, 4, NULL, 'finished', 'https://issuer.example#alice', 1796318316.3825266, 1796318316.8722358, NULL, '{"name": "judge", "model": "rules", "base_url": null, "protocol": "react", "temperature": 0.0, "max_steps": 10, "time_limit": 300.0, "tools": null, "system_prompt": null, "api_key_env": "OPENAI_API_KEY"}');


--
-- Data for Name: memories; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.memories VALUES (1, 'default', 'The user prefers green tea over coffee', 'be08de6a89c0e906927f91cf1a995d28c263cf0f70c2dc88633925961d3d322c', 'agent', 'ses_ec81f504b16c4fe0', 1796318316.1426678, 'https://issuer.example#alice');
INSERT INTO public.memories VALUES (2, 'home', '用户住在上海', '94c292a33cc0fe1dab49d9fb6e2980bac20ce0f4c38f7c33cb03c02c9a20b2ca', 'user', NULL, 1796318316.2485197, 'https://issuer.example#alice');
INSERT INTO public.memories VALUES (3, 'default', 'The team meets on Mondays', '5e40b38824a962b11d5d43e6ea1ea7d60eb9385356497dfdf82fa1e9c8c0fa91', 'user', NULL, 1796318316.2905092, NULL);


--
-- Data for Name: run_owners; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: runs; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.runs VALUES ('ses_ec81f504b16c4fe0', 'run_661f8d6be75f4d92', 'alice@example.org', 1796318315.3056855);
INSERT INTO public.runs VALUES ('ses_ec81f504b16c4fe0', 'run_eb6d2e45f6a04fec', 'alice@example.org', 1796318315.3592272);
INSERT INTO public.runs VALUES ('ses_728a38f12a5b487b', 'run_half', 'alice@example.org', 1796318315.7465534);
INSERT INTO public.runs VALUES ('ses_9c690671a16c412a', 'run_5248b1a3443845ed', 'sub-bob', 1796318315.9005845);
INSERT INTO public.runs VALUES ('ses_b1e1d6e2b2964865', 'run_512363cd2e9b4493', 'alice@example.org', 1796318316.5520759);
INSERT INTO public.runs VALUES ('ses_75322e03024f4976', 'run_0394a890581342a6', 'alice@example.org', 1796318316.6124597);


--
-- Data for Name: sessions; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.sessions VALUES ('ses_ec81f504b16c4fe0', 'What is 6*7?', 1796318314.454206, 1796318315.3931913, 18, '{"model": "fake-arith", "base_url": null, "protocol": "react", "settings": {"max_steps": 10, "time_limit": 300.0, "tool_timeout": 30.0, "max_observation_chars": 2000, "temperature": 0.0, "max_tokens": 4096, "max_format_retries": 2, "keep_steps": 6, "memory_budget_tokens": 3000, "delta_interval": 0.03, "max_tools": null, "pinned_tools": [], "require_approval": true, "tool_approval": {}, "repeat_policy": "redirect"}}', NULL, NULL, 'https://issuer.example#alice', NULL);
INSERT INTO public.sessions VALUES ('ses_4ded49b2b7544a75', 'What is 6*7? (after the first answer)', 1796318315.4395149, 1796318315.4395149, 9, '{"model": "fake-arith", "base_url": null, "protocol": "react", "settings": {"max_steps": 10, "time_limit": 300.0, "tool_timeout": 30.0, "max_observation_chars": 2000, "temperature": 0.0, "max_tokens": 4096, "max_format_retries": 2, "keep_steps": 6, "memory_budget_tokens": 3000, "delta_interval": 0.03, "max_tools": null, "pinned_tools": [], "require_approval": true, "tool_approval": {}, "repeat_policy": "redirect"}}', 'ses_ec81f504b16c4fe0', 'snap_12bf1e97c1a54559', 'https://issuer.example#alice', NULL);
INSERT INTO public.sessions VALUES ('ses_e58741a21deb443f', 'What is 6*7?', 1796318314.454206, 1796318315.3931913, 18, '{"model": "fake-arith", "base_url": null, "protocol": "react", "settings": {"max_steps": 10, "time_limit": 300.0, "tool_timeout": 30.0, "max_observation_chars": 2000, "temperature": 0.0, "max_tokens": 4096, "max_format_retries": 2, "keep_steps": 6, "memory_budget_tokens": 3000, "delta_interval": 0.03, "max_tools": null, "pinned_tools": [], "require_approval": true, "tool_approval": {}, "repeat_policy": "redirect"}}', NULL, NULL, 'https://issuer.example#alice', 1796318315.6981802);
INSERT INTO public.sessions VALUES ('ses_728a38f12a5b487b', 'interrupted', 1796318315.7387176, 1796318315.7467022, 4, '{"model": "", "base_url": null, "protocol": "react", "settings": {}}', NULL, NULL, 'https://issuer.example#alice', NULL);
INSERT INTO public.sessions VALUES ('ses_9c690671a16c412a', 'bob''s', 1796318315.7733822, 1796318316.071702, 9, '{"model": "fake-arith", "base_url": null, "protocol": "react", "settings": {"max_steps": 10, "time_limit": 300.0, "tool_timeout": 30.0, "max_observation_chars": 2000, "temperature": 0.0, "max_tokens": 4096, "max_format_retries": 2, "keep_steps": 6, "memory_budget_tokens": 3000, "delta_interval": 0.03, "max_tools": null, "pinned_tools": [], "require_approval": true, "tool_approval": {}, "repeat_policy": "redirect"}}', NULL, NULL, 'sub-bob', NULL);
INSERT INTO public.sessions VALUES ('ses_43a076fecd7640fe', 'made before sign-in', 1796318316.0756533, 1796318316.0756533, 0, '{"model": "", "base_url": null, "protocol": "react", "settings": {}}', NULL, NULL, NULL, NULL);
INSERT INTO public.sessions VALUES ('ses_b1e1d6e2b2964865', 'adds v1 #1 · add-2 · react', 1796318316.5291188, 1796318316.6437407, 9, '{"model": "rules", "base_url": null, "protocol": "react", "settings": {"max_steps": 10, "time_limit": 300.0, "tool_timeout": 30.0, "max_observation_chars": 2000, "temperature": 0.0, "max_tokens": 4096, "max_format_retries": 2, "keep_steps": 6, "memory_budget_tokens": 3000, "delta_interval": 0.03, "max_tools": null, "pinned_tools": [], "require_approval": true, "tool_approval": {}, "repeat_policy": "redirect"}}', NULL, NULL, 'https://issuer.example#alice', NULL);
INSERT INTO public.sessions VALUES ('ses_75322e03024f4976', 'adds v1 #1 · add-1 · react', 1796318316.529456, 1796318316.6654718, 9, '{"model": "rules", "base_url": null, "protocol": "react", "settings": {"max_steps": 10, "time_limit": 300.0, "tool_timeout": 30.0, "max_observation_chars": 2000, "temperature": 0.0, "max_tokens": 4096, "max_format_retries": 2, "keep_steps": 6, "memory_budget_tokens": 3000, "delta_interval": 0.03, "max_tools": null, "pinned_tools": [], "require_approval": true, "tool_approval": {}, "repeat_policy": "redirect"}}', NULL, NULL, 'https://issuer.example#alice', NULL);


--
-- Data for Name: share_links; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.share_links VALUES ('shr_dede4883b81c4d53', 'f9e586e67b0768f0171e3d3fcb35d1f9e4188a16699c3fbcc1f60bdd9f367688', 'ses_ec81f504b16c4fe0', 'snap_12bf1e97c1a54559', 'https://issuer.example#alice', 1796318315.4006426, 1798910315.4006426, NULL, false);
INSERT INTO public.share_links VALUES ('shr_0f6d1f7d386d4166', '0f6d2adde1f3ead2fc890bafa01be5aa3ed3cc6fa33e31c024344e7c86e523fc', 'ses_ec81f504b16c4fe0', NULL, 'https://issuer.example#alice', 1796318315.422585, NULL, NULL, true);


--
-- Data for Name: snapshots; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.snapshots VALUES ('snap_12bf1e97c1a54559', 'ses_ec81f504b16c4fe0', 'after the first answer', 1796318315.339682, 9, 'What is 6*7?', '{"model": "fake-arith", "base_url": null, "protocol": "react", "settings": {"max_steps": 10, "time_limit": 300.0, "tool_timeout": 30.0, "max_observation_chars": 2000, "temperature": 0.0, "max_tokens": 4096, "max_format_retries": 2, "keep_steps": 6, "memory_budget_tokens": 3000, "delta_interval": 0.03, "max_tools": null, "pinned_tools": [], "require_approval": true, "tool_approval": {}, "repeat_policy": "redirect"}}', 'https://issuer.example#alice');
INSERT INTO public.snapshots VALUES ('snap_2d3245f591c44c4d', 'ses_e58741a21deb443f', 'after the first answer', 1796318315.339682, 9, 'What is 6*7?', '{"model": "fake-arith", "base_url": null, "protocol": "react", "settings": {"max_steps": 10, "time_limit": 300.0, "tool_timeout": 30.0, "max_observation_chars": 2000, "temperature": 0.0, "max_tokens": 4096, "max_format_retries": 2, "keep_steps": 6, "memory_budget_tokens": 3000, "delta_interval": 0.03, "max_tools": null, "pinned_tools": [], "require_approval": true, "tool_approval": {}, "repeat_policy": "redirect"}}', 'https://issuer.example#alice');


--
-- Data for Name: sparrow_alembic_version; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.sparrow_alembic_version VALUES ('0008_experiment_judge');


--
-- Data for Name: sparrow_schema; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.sparrow_schema VALUES (1, 1);


--
-- Name: memories_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.memories_id_seq', 3, true);


--
-- Name: sparrow_schema_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.sparrow_schema_id_seq', 1, false);


--
-- Name: dataset_items dataset_items_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.dataset_items
    ADD CONSTRAINT dataset_items_pkey PRIMARY KEY (dataset_id, "position");


--
-- Name: datasets datasets_owner_name_version_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.datasets
    ADD CONSTRAINT datasets_owner_name_version_key UNIQUE (owner, name, version);


--
-- Name: datasets datasets_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.datasets
    ADD CONSTRAINT datasets_pkey PRIMARY KEY (id);


--
-- Name: events events_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.events
    ADD CONSTRAINT events_pkey PRIMARY KEY (session_id, seq);


--
-- Name: experiment_results experiment_results_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.experiment_results
    ADD CONSTRAINT experiment_results_pkey PRIMARY KEY (experiment_id, "position", config_index, repeat);


--
-- Name: experiments experiments_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.experiments
    ADD CONSTRAINT experiments_pkey PRIMARY KEY (id);


--
-- Name: memories memories_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.memories
    ADD CONSTRAINT memories_pkey PRIMARY KEY (id);


--
-- Name: memories memories_scope_text_hash_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.memories
    ADD CONSTRAINT memories_scope_text_hash_key UNIQUE (scope, text_hash);


--
-- Name: run_owners run_owners_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.run_owners
    ADD CONSTRAINT run_owners_pkey PRIMARY KEY (session_id);


--
-- Name: runs runs_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.runs
    ADD CONSTRAINT runs_pkey PRIMARY KEY (session_id, run_id);


--
-- Name: sessions sessions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sessions
    ADD CONSTRAINT sessions_pkey PRIMARY KEY (id);


--
-- Name: share_links share_links_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.share_links
    ADD CONSTRAINT share_links_pkey PRIMARY KEY (id);


--
-- Name: share_links share_links_token_hash_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.share_links
    ADD CONSTRAINT share_links_token_hash_key UNIQUE (token_hash);


--
-- Name: snapshots snapshots_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.snapshots
    ADD CONSTRAINT snapshots_pkey PRIMARY KEY (id);


--
-- Name: snapshots snapshots_session_id_name_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.snapshots
    ADD CONSTRAINT snapshots_session_id_name_key UNIQUE (session_id, name);


--
-- Name: sparrow_alembic_version sparrow_alembic_version_pkc; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sparrow_alembic_version
    ADD CONSTRAINT sparrow_alembic_version_pkc PRIMARY KEY (version_num);


--
-- Name: sparrow_schema sparrow_schema_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sparrow_schema
    ADD CONSTRAINT sparrow_schema_pkey PRIMARY KEY (id);


--
-- Name: ix_datasets_name; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_datasets_name ON public.datasets USING btree (name);


--
-- Name: ix_datasets_owner; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_datasets_owner ON public.datasets USING btree (owner);


--
-- Name: ix_experiments_dataset_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_experiments_dataset_id ON public.experiments USING btree (dataset_id);


--
-- Name: ix_experiments_owner; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_experiments_owner ON public.experiments USING btree (owner);


--
-- Name: ix_memories_owner; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_memories_owner ON public.memories USING btree (owner);


--
-- Name: ix_memories_scope_created; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_memories_scope_created ON public.memories USING btree (scope, created_at);


--
-- Name: ix_memories_source_session_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_memories_source_session_id ON public.memories USING btree (source_session_id);


--
-- Name: ix_memories_text_trgm; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_memories_text_trgm ON public.memories USING gin (text public.gin_trgm_ops);


--
-- Name: ix_sessions_owner; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_sessions_owner ON public.sessions USING btree (owner);


--
-- Name: ix_sessions_updated_at; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_sessions_updated_at ON public.sessions USING btree (updated_at);


--
-- Name: ix_share_links_session_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_share_links_session_id ON public.share_links USING btree (session_id);


--
-- Name: ix_snapshots_owner; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_snapshots_owner ON public.snapshots USING btree (owner);


--
-- Name: ix_snapshots_session_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_snapshots_session_id ON public.snapshots USING btree (session_id);


--
-- Name: dataset_items dataset_items_dataset_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.dataset_items
    ADD CONSTRAINT dataset_items_dataset_id_fkey FOREIGN KEY (dataset_id) REFERENCES public.datasets(id) ON DELETE CASCADE;


--
-- Name: events events_session_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.events
    ADD CONSTRAINT events_session_id_fkey FOREIGN KEY (session_id) REFERENCES public.sessions(id) ON DELETE CASCADE;


--
-- Name: experiment_results experiment_results_experiment_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.experiment_results
    ADD CONSTRAINT experiment_results_experiment_id_fkey FOREIGN KEY (experiment_id) REFERENCES public.experiments(id) ON DELETE CASCADE;


--
-- Name: experiment_results experiment_results_session_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.experiment_results
    ADD CONSTRAINT experiment_results_session_id_fkey FOREIGN KEY (session_id) REFERENCES public.sessions(id) ON DELETE SET NULL;


--
-- Name: experiments experiments_dataset_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.experiments
    ADD CONSTRAINT experiments_dataset_id_fkey FOREIGN KEY (dataset_id) REFERENCES public.datasets(id) ON DELETE CASCADE;


--
-- Name: run_owners run_owners_session_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.run_owners
    ADD CONSTRAINT run_owners_session_id_fkey FOREIGN KEY (session_id) REFERENCES public.sessions(id) ON DELETE CASCADE;


--
-- Name: runs runs_session_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.runs
    ADD CONSTRAINT runs_session_id_fkey FOREIGN KEY (session_id) REFERENCES public.sessions(id) ON DELETE CASCADE;


--
-- Name: sessions sessions_parent_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sessions
    ADD CONSTRAINT sessions_parent_id_fkey FOREIGN KEY (parent_id) REFERENCES public.sessions(id) ON DELETE SET NULL;


--
-- Name: share_links share_links_session_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.share_links
    ADD CONSTRAINT share_links_session_id_fkey FOREIGN KEY (session_id) REFERENCES public.sessions(id) ON DELETE CASCADE;


--
-- Name: share_links share_links_snapshot_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.share_links
    ADD CONSTRAINT share_links_snapshot_id_fkey FOREIGN KEY (snapshot_id) REFERENCES public.snapshots(id) ON DELETE CASCADE;


--
-- Name: snapshots snapshots_session_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.snapshots
    ADD CONSTRAINT snapshots_session_id_fkey FOREIGN KEY (session_id) REFERENCES public.sessions(id) ON DELETE CASCADE;


--
-- PostgreSQL database dump complete
--


