// Fixed word lists the generator draws from. Real cities (with their zone and coordinates) rather
// than faker's invented ones, so an event's time zone, its venue's country and its currency agree.

export interface Currency {
  symbol: '$' | '€' | '';
  code: string;
  position: 'prefix' | 'postfix' | '';
}

export interface City {
  city: string;
  /** US/AU state or CA province: TEC stores the first in `state`, the second in `province`. */
  state?: string;
  province?: string;
  country: string;
  timezone: string;
  lat: number;
  lng: number;
  /** faker `replaceSymbols` pattern: # digit, ? letter. */
  zip: string;
  currency: Currency;
}

const USD: Currency = { symbol: '$', code: 'USD', position: 'prefix' };
const CAD: Currency = { symbol: '$', code: 'CAD', position: 'prefix' };
const AUD: Currency = { symbol: '$', code: 'AUD', position: 'prefix' };
const EUR: Currency = { symbol: '€', code: 'EUR', position: 'postfix' };
// The symbol stays empty so the site default shows, as in the reference's captures.
const GBP: Currency = { symbol: '', code: 'GBP', position: '' };
const JPY: Currency = { symbol: '', code: 'JPY', position: '' };

export const CITIES: readonly City[] = [
  {
    city: 'New York',
    state: 'NY',
    country: 'United States',
    timezone: 'America/New_York',
    lat: 40.7128,
    lng: -74.006,
    zip: '100##',
    currency: USD,
  },
  {
    city: 'Boston',
    state: 'MA',
    country: 'United States',
    timezone: 'America/New_York',
    lat: 42.3601,
    lng: -71.0589,
    zip: '021##',
    currency: USD,
  },
  {
    city: 'Chicago',
    state: 'IL',
    country: 'United States',
    timezone: 'America/Chicago',
    lat: 41.8781,
    lng: -87.6298,
    zip: '606##',
    currency: USD,
  },
  {
    city: 'Los Angeles',
    state: 'CA',
    country: 'United States',
    timezone: 'America/Los_Angeles',
    lat: 34.0522,
    lng: -118.2437,
    zip: '900##',
    currency: USD,
  },
  {
    city: 'Toronto',
    province: 'ON',
    country: 'Canada',
    timezone: 'America/Toronto',
    lat: 43.6532,
    lng: -79.3832,
    zip: 'M#? #?#',
    currency: CAD,
  },
  {
    city: 'Paris',
    country: 'France',
    timezone: 'Europe/Paris',
    lat: 48.8566,
    lng: 2.3522,
    zip: '750##',
    currency: EUR,
  },
  {
    city: 'Lyon',
    country: 'France',
    timezone: 'Europe/Paris',
    lat: 45.764,
    lng: 4.8357,
    zip: '6900#',
    currency: EUR,
  },
  {
    city: 'Berlin',
    country: 'Germany',
    timezone: 'Europe/Berlin',
    lat: 52.52,
    lng: 13.405,
    zip: '10###',
    currency: EUR,
  },
  {
    city: 'London',
    country: 'United Kingdom',
    timezone: 'Europe/London',
    lat: 51.5074,
    lng: -0.1278,
    zip: 'SW# #??',
    currency: GBP,
  },
  {
    city: 'Tokyo',
    country: 'Japan',
    timezone: 'Asia/Tokyo',
    lat: 35.6762,
    lng: 139.6503,
    zip: '1##-####',
    currency: JPY,
  },
  {
    city: 'Osaka',
    country: 'Japan',
    timezone: 'Asia/Tokyo',
    lat: 34.6937,
    lng: 135.5023,
    zip: '5##-####',
    currency: JPY,
  },
  {
    city: 'Sydney',
    state: 'NSW',
    country: 'Australia',
    timezone: 'Australia/Sydney',
    lat: -33.8688,
    lng: 151.2093,
    zip: '20##',
    currency: AUD,
  },
  {
    city: 'Melbourne',
    state: 'VIC',
    country: 'Australia',
    timezone: 'Australia/Melbourne',
    lat: -37.8136,
    lng: 144.9631,
    zip: '30##',
    currency: AUD,
  },
];

/** Zones for events without a venue (online events): UTC is common there. */
export const ONLINE_ZONES: readonly string[] = [
  'UTC',
  'UTC',
  'America/New_York',
  'Europe/Paris',
  'Asia/Tokyo',
  'Australia/Sydney',
];

export const VENUE_QUALIFIERS = [
  'Central',
  'Riverside',
  'Old Town',
  'Harbour',
  'Union',
  'Grand',
  'Northside',
  'Civic',
];
export const VENUE_KINDS = [
  'Hall',
  'Theatre',
  'Arena',
  'Gallery',
  'Club',
  'Community Center',
  'Park',
  'Library',
  'Brewery',
  'Studio',
  'Conference Center',
  'Museum',
];

export const TITLE_PREFIXES = [
  'Annual',
  'Summer',
  'Winter',
  'Spring',
  'Late-Night',
  'Community',
  'International',
  'Beginner',
  'Family',
  'Charity',
  'Sunday',
  'Open',
];
export const TITLE_TOPICS = [
  'Jazz',
  'TypeScript',
  'Wine',
  'Pottery',
  'Photography',
  'Yoga',
  'Startup',
  'Poetry',
  'Street Food',
  'Climate',
  'Chess',
  'Salsa',
  'Vinyl',
  'Astronomy',
  'Design',
  'Craft Beer',
  'Film',
  'Robotics',
  'Watercolour',
  'Trail Running',
];
export const TITLE_KINDS = [
  'Concert',
  'Workshop',
  'Meetup',
  'Festival',
  'Conference',
  'Exhibition',
  'Tasting',
  'Lecture',
  'Screening',
  'Market',
  'Gala',
  'Hackathon',
  'Open Mic',
  'Night',
  'Class',
  'Fair',
];

/** Categories (`tribe_events_cat`): parents with their children, inserted parents first. */
export const CATEGORY_TREE: ReadonlyArray<readonly [string, readonly string[]]> = [
  ['Music', ['Concerts', 'Festivals', 'Jazz']],
  ['Arts & Culture', ['Exhibitions', 'Theatre', 'Film']],
  ['Food & Drink', ['Tastings', 'Markets']],
  ['Technology', ['Meetups', 'Conferences', 'Workshops']],
  ['Sports & Wellness', ['Running', 'Yoga']],
  ['Family', []],
  ['Community', []],
];

export const TAGS = [
  'Free',
  'Outdoor',
  'Online',
  'Family Friendly',
  '18+',
  'Accessible',
  'Live Music',
  'Networking',
  'Beginner',
  'Charity',
  'Weekend',
  'Limited Seats',
];
